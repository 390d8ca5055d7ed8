import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { consoleCsp, consoleMetaCsp } from '../../../main/common/rendererHost/csp';

function directives(policy: string): Map<string, string> {
  return new Map(policy.split('; ').map((d) => [d.slice(0, d.indexOf(' ')), d.slice(d.indexOf(' ') + 1)]));
}

describe('consoleCsp', () => {
  const cases = [
    { runtime: 'electron' as const, directive: 'default-src', want: "'none'" },
    { runtime: 'electron' as const, directive: 'script-src', want: "'self'" },
    { runtime: 'electron' as const, directive: 'object-src', want: "'none'" },
    { runtime: 'electron' as const, directive: 'connect-src', want: undefined },
    { runtime: 'electron' as const, directive: 'frame-ancestors', want: "'none'" },
    { runtime: 'web' as const, directive: 'connect-src', want: "'self'" },
    { runtime: 'web' as const, directive: 'frame-ancestors', want: "'none'" },
    { runtime: 'web' as const, directive: 'base-uri', want: "'none'" },
  ];
  it.each(cases)('$runtime: $directive', ({ runtime, directive, want }) => {
    expect(directives(consoleCsp(runtime)).get(directive)).toBe(want);
  });

  it.each(['electron', 'web'] as const)('%s: no eval, no inline scripts, no remote sources', (runtime) => {
    const policy = consoleCsp(runtime);
    expect(policy).not.toMatch(/unsafe-eval|wasm-unsafe-eval|https?:|\*/);
    expect(directives(policy).get('script-src')).not.toContain('unsafe-inline');
  });

  it('the meta policy is the web policy without frame-ancestors (ignored in <meta>)', () => {
    expect(consoleMetaCsp()).not.toContain('frame-ancestors');
    expect(`${consoleMetaCsp()}; frame-ancestors 'none'`).toBe(consoleCsp('web'));
  });

  it('renderer/index.html carries the meta policy', () => {
    const html = readFileSync(join(import.meta.dirname, '../../../renderer/index.html'), 'utf8');
    const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(html);
    expect(meta?.[1]).toBe(consoleMetaCsp());
  });
});
