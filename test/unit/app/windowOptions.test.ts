import { describe, expect, it } from 'vitest';
import { windowOptions } from '../../../main/app/windowOptions';

describe('windowOptions', () => {
  const opts = windowOptions({ preloadPath: '/app/out/preload/index.cjs' });
  const prefs = opts.webPreferences ?? {};
  const cases: { key: keyof typeof prefs; want: unknown }[] = [
    { key: 'preload', want: '/app/out/preload/index.cjs' },
    { key: 'contextIsolation', want: true },
    { key: 'sandbox', want: true },
    { key: 'nodeIntegration', want: false },
    { key: 'nodeIntegrationInWorker', want: false },
    { key: 'nodeIntegrationInSubFrames', want: false },
    { key: 'webSecurity', want: true },
    { key: 'allowRunningInsecureContent', want: false },
    { key: 'experimentalFeatures', want: false },
    { key: 'webviewTag', want: false },
    { key: 'navigateOnDragDrop', want: false },
  ];
  it.each(cases)('webPreferences.$key = $want', ({ key, want }) => {
    expect(prefs[key]).toBe(want);
  });

  it('has no remote or extra preferences beyond the reviewed set', () => {
    expect(Object.keys(prefs).sort()).toEqual(
      [
        'allowRunningInsecureContent',
        'contextIsolation',
        'experimentalFeatures',
        'navigateOnDragDrop',
        'nodeIntegration',
        'nodeIntegrationInSubFrames',
        'nodeIntegrationInWorker',
        'preload',
        'safeDialogs',
        'sandbox',
        'spellcheck',
        'webSecurity',
        'webviewTag',
      ].sort(),
    );
  });

  it('opens hidden (shown on ready-to-show) and titled', () => {
    expect(opts.show).toBe(false);
    expect(opts.title).toBe('Pilothouse');
  });
});
