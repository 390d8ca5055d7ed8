import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { launcherPageFile, launcherPageHtml, writeLauncherPage, writePrivateFile } from '../../../main/web/launcherPage';

const dir = mkdtempSync(join(tmpdir(), 'pilothouse-launcher-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('launcher page', () => {
  it('redirects at once to the URL, sends no referrer, runs no script', () => {
    const html = launcherPageHtml('http://127.0.0.1:7380/#token=abc');
    expect(html).toContain('<meta http-equiv="refresh" content="0;url=http://127.0.0.1:7380/#token=abc">');
    expect(html).toContain('<meta name="referrer" content="no-referrer">');
    expect(html).toContain('<a href="http://127.0.0.1:7380/#token=abc" rel="noreferrer">');
    expect(html).not.toContain('<script');
  });

  it('escapes the URL', () => {
    expect(launcherPageHtml('http://x/"><script>&')).toContain('content="0;url=http://x/&quot;&gt;&lt;script&gt;&amp;"');
  });

  it('is written 0600 into the data dir, and its path does not carry the token', () => {
    const path = writeLauncherPage(dir, 'http://127.0.0.1:7380/#token=SECRET');
    expect(path).toBe(launcherPageFile(dir));
    expect(path).not.toContain('SECRET');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toContain('#token=SECRET');
  });

  it('writePrivateFile tightens a file that existed with a looser mode', () => {
    const path = join(dir, 'loose');
    writeFileSync(path, 'old', { mode: 0o644 });
    writePrivateFile(path, 'new');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toBe('new');
  });
});
