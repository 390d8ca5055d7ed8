// One web host for the whole e2e run, on this suite's loopback ports
// (console 28700, members 28710–28715; PILOTHOUSE_E2E_WEB_PORT and
// PILOTHOUSE_E2E_PORT_BASE move them, so two checkouts can run the suite at
// once). The returned function is Playwright's global teardown: it stops the
// host by PID and removes its data dir.

import { startWebHost } from './webHostProcess';

function portFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1024 || port > 65535) throw new Error(`${name} must be a port number (1024-65535), not ${JSON.stringify(raw)}`);
  return port;
}

export const E2E_WEB_PORT = portFromEnv('PILOTHOUSE_E2E_WEB_PORT', 28700);
export const E2E_PORT_BASE = portFromEnv('PILOTHOUSE_E2E_PORT_BASE', 28710);

export default async function globalSetup(): Promise<() => Promise<void>> {
  const host = await startWebHost({ port: E2E_WEB_PORT, portBase: E2E_PORT_BASE });
  // Workers inherit the environment of the process that ran the setup; the
  // tokened URL travels there, never on a command line.
  process.env.PILOTHOUSE_E2E_URL = host.url;
  process.env.PILOTHOUSE_E2E_DATA_DIR = host.dataDir;
  return async () => {
    await host.stop();
  };
}
