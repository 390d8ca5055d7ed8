// Whether the Electron binary is on disk. The npm `electron` package exports
// the binary's path, but when it was installed with
// ELECTRON_SKIP_BINARY_DOWNLOAD it throws (no path.txt) or names a file that
// is not there; launching then would hang or fail obscurely, so the Electron
// e2e run checks first and stops with one clear sentence.

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

export const ELECTRON_MISSING =
  'Electron binary not installed: run npm install without ELECTRON_SKIP_BINARY_DOWNLOAD';

export type ElectronBinaryStatus = { ok: true; path: string } | { ok: false; message: string };

/** Pure: `load` is `require('electron')`, `exists` is a file check (injected for tests). */
export function electronBinaryStatus(load: () => unknown, exists: (path: string) => boolean): ElectronBinaryStatus {
  let path: unknown;
  try {
    path = load();
  } catch (err) {
    return { ok: false, message: `${ELECTRON_MISSING} (${(err as Error).message})` };
  }
  if (typeof path !== 'string' || path === '') {
    return { ok: false, message: `${ELECTRON_MISSING} (require('electron') gave no path)` };
  }
  if (!exists(path)) return { ok: false, message: `${ELECTRON_MISSING} (${path} does not exist)` };
  return { ok: true, path };
}

/** The installed binary's path, or throws with ELECTRON_MISSING. */
export function requireElectronBinary(): string {
  const require = createRequire(import.meta.url);
  const status = electronBinaryStatus(() => require('electron') as unknown, existsSync);
  if (!status.ok) throw new Error(status.message);
  return status.path;
}
