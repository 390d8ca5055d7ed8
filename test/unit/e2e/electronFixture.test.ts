import { describe, expect, it } from 'vitest';
import { ELECTRON_MISSING, electronBinaryStatus, requireElectronBinary } from '../../e2e/electronBinary';
import { e2eTarget } from '../../e2e/target';

describe('electronBinaryStatus', () => {
  const cases: { name: string; load: () => unknown; exists: boolean; ok: boolean; detail?: string }[] = [
    {
      name: 'package throws (binary download skipped)',
      load: () => {
        throw new Error('Electron failed to install correctly');
      },
      exists: true,
      ok: false,
      detail: 'Electron failed to install correctly',
    },
    { name: 'package exports no string', load: () => ({}), exists: true, ok: false, detail: 'gave no path' },
    { name: 'path names a missing file', load: () => '/nope/electron', exists: false, ok: false, detail: '/nope/electron does not exist' },
    { name: 'binary present', load: () => '/opt/electron/electron', exists: true, ok: true },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const s = electronBinaryStatus(c.load, () => c.exists);
      expect(s.ok).toBe(c.ok);
      if (s.ok) expect(s.path).toBe('/opt/electron/electron');
      else {
        expect(s.message.startsWith(ELECTRON_MISSING)).toBe(true);
        expect(s.message).toContain(c.detail);
      }
    });
  }

  it('requireElectronBinary agrees with the real install', () => {
    let path: string | undefined;
    let error: string | undefined;
    try {
      path = requireElectronBinary();
    } catch (err) {
      error = (err as Error).message;
    }
    // Either a real path comes back or the clear message does; never anything else.
    if (path === undefined) expect(error?.startsWith(ELECTRON_MISSING)).toBe(true);
    else expect(path.length).toBeGreaterThan(0);
  });
});

describe('e2eTarget', () => {
  const cases: [string | undefined, 'web' | 'electron'][] = [
    [undefined, 'web'],
    ['', 'web'],
    ['web', 'web'],
    ['electron', 'electron'],
  ];
  for (const [value, want] of cases) {
    it(`${String(value)} -> ${want}`, () => expect(e2eTarget({ PILOTHOUSE_E2E_TARGET: value })).toBe(want));
  }
  it('rejects an unknown target', () => {
    expect(() => e2eTarget({ PILOTHOUSE_E2E_TARGET: 'firefox' })).toThrow(/PILOTHOUSE_E2E_TARGET/);
  });
});
