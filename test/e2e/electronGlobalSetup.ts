// Global setup of the Electron e2e run: fail at once, with one clear
// sentence, when the Electron binary is not installed (instead of a launch
// that hangs or errors obscurely); otherwise make the data dir the app's
// control plane lives in (the workers' fixture launches the app on it) and
// remove it afterwards.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireElectronBinary } from './electronBinary';

export default async function electronGlobalSetup(): Promise<() => Promise<void>> {
  requireElectronBinary();
  const dir = mkdtempSync(join(tmpdir(), 'pilothouse-e2e-electron-'));
  // Workers inherit the environment of the process that ran the setup.
  process.env.PILOTHOUSE_E2E_DATA_DIR = dir;
  return async () => {
    rmSync(dir, { recursive: true, force: true });
  };
}
