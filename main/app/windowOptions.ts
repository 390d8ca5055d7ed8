// The console window's options, as data: every security-relevant preference
// spelled out (even where it is Electron's default) so a reader and the unit
// test see the whole policy in one place, and a future Electron default
// change cannot loosen it silently.

import type { BrowserWindowConstructorOptions } from 'electron';

export interface WindowOptionsInput {
  /** Absolute path of the built preload (out/preload/index.cjs). */
  preloadPath: string;
}

export function windowOptions({ preloadPath }: WindowOptionsInput): BrowserWindowConstructorOptions {
  return {
    width: 1280,
    height: 820,
    minWidth: 960,
    minHeight: 600,
    title: 'Pilothouse',
    // Shown on 'ready-to-show': no white flash before the first paint.
    show: false,
    backgroundColor: '#14171c',
    webPreferences: {
      preload: preloadPath,
      // The renderer is a web page: no Node, its own JS world, an OS sandbox.
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      // Dropping a file on the window must not navigate it to that file.
      navigateOnDragDrop: false,
      safeDialogs: true,
      spellcheck: false,
    },
  };
}
