// `npm start` (after `npm run build`): the Electron console when the Electron
// binary and a display are available; otherwise — until the browser console
// (web host) lands with issue K1 — a local 3-member cluster via
// `pilothouse up --data-dir ~/.pilothouse`, so `npm start` runs something real.

import { spawn } from 'node:child_process';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');

async function electronBinary() {
  try {
    // The electron package exports the binary's path; it throws when the
    // binary was never downloaded (ELECTRON_SKIP_BINARY_DOWNLOAD=1).
    const mod = await import('electron');
    return typeof mod.default === 'string' ? mod.default : undefined;
  } catch {
    return undefined;
  }
}

function hasDisplay() {
  return process.platform !== 'linux' || Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
}

function run(command, args, env = {}) {
  const child = spawn(command, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  // Forward Ctrl-C / SIGTERM once; the child stops its own members.
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

const electron = await electronBinary();
if (electron && hasDisplay()) {
  run(electron, [join(root, 'out/main/index.js')]);
} else {
  const why = electron ? 'no display' : 'the Electron binary is not installed';
  const dataDir = process.env.PILOTHOUSE_DATA_DIR ?? join(homedir(), '.pilothouse');
  process.stdout.write(
    `pilothouse: not starting the desktop console (${why}); the browser console (web host) arrives with issue K1.\n` +
      `pilothouse: starting a local 3-member cluster instead: pilothouse up --data-dir ${dataDir}\n`,
  );
  run(process.execPath, [join(root, 'out/main/cli.js'), 'up', '--data-dir', dataDir]);
}
