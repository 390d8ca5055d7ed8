// One web host for the whole e2e run, on this suite's loopback ports
// (console 28700, members 28710–28715). The returned function is Playwright's
// global teardown: it stops the host by PID and removes its data dir.

import { startWebHost } from './webHostProcess';

export const E2E_WEB_PORT = 28700;
export const E2E_PORT_BASE = 28710;

export default async function globalSetup(): Promise<() => Promise<void>> {
  const host = await startWebHost({ port: E2E_WEB_PORT, portBase: E2E_PORT_BASE });
  // Workers inherit the environment of the process that ran the setup.
  process.env.PILOTHOUSE_E2E_URL = host.url;
  process.env.PILOTHOUSE_E2E_DATA_DIR = host.dataDir;
  return async () => {
    await host.stop();
  };
}
