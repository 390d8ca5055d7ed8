// `npm start` (after `npm run build`): the Electron console when the Electron
// binary and a display are available; otherwise the browser console — the web
// host, `pilothouse web --data-dir ~/.pilothouse` — which prints its tokened
// URL (the token in its #fragment), writes it to ~/.pilothouse/console.url and
// opens a browser where there is a desktop (through a 0600 launcher page, never
// with the token on a command line). Arguments after `npm start --` go to `pilothouse web`
// (e.g. `npm start -- --port 0 --no-open`).

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
  // Forward Ctrl-C / SIGTERM; the child stops its own control plane.
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

const electron = await electronBinary();
if (electron && hasDisplay()) {
  run(electron, [join(root, 'out/main/index.js')]);
} else {
  const why = electron ? 'no display' : 'the Electron binary is not installed';
  const dataDir = process.env.PILOTHOUSE_DATA_DIR ?? join(homedir(), '.pilothouse');
  process.stdout.write(`pilothouse: ${why}; starting the browser console: pilothouse web --data-dir ${dataDir}\n`);
  run(process.execPath, [join(root, 'out/main/cli.js'), 'web', '--data-dir', dataDir, ...process.argv.slice(2)]);
}
