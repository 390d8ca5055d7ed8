// DIR/controlplane.pid: the process that hosts a control plane under DIR
// (`pilothouse up`) names itself there, so that tools acting on the cluster
// (a certificate renewal) know whom to send SIGHUP — the signal on which the
// host restarts its components in turn. Mode 0600, like the rest of DIR's
// secrets' neighbours; removed on a clean exit. A file naming a live process
// means another host runs the plane: a second one is refused.

import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const PID_FILE = 'controlplane.pid';

export function pidFilePath(dataDir: string): string {
  return join(dataDir, PID_FILE);
}

/** The pid the file names, when that process is alive. */
export function livePlaneHost(dataDir: string): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(pidFilePath(dataDir), 'utf8').trim());
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? pid : undefined;
  }
}

/** Writes this process's pid (0600); throws when another live process holds the file. Returns the release. */
export function claimPidFile(dataDir: string): () => void {
  const other = livePlaneHost(dataDir);
  if (other !== undefined && other !== process.pid) throw new Error(`${pidFilePath(dataDir)} names pid ${other}, which is running: another process hosts this control plane`);
  const file = pidFilePath(dataDir);
  rmSync(file, { force: true }); // a stale file may have other modes; a fresh one gets 0600
  writeFileSync(file, `${process.pid}\n`, { mode: 0o600 });
  return () => {
    if (livePlaneHost(dataDir) === process.pid) rmSync(file, { force: true });
  };
}

/** What a host needs of the plane it runs to restart it on SIGHUP. */
export interface RestartablePlane {
  restartInTurn(report?: (line: string) => void): Promise<boolean>;
}

/**
 * For a console host (the web host, the Electron app): claims DIR/controlplane.pid
 * and restarts the plane's components in turn on SIGHUP, so `pilothouse certs
 * renew all` reaches it as it reaches `pilothouse up`. Throws as claimPidFile
 * does; returns the release (signal handler off, file removed).
 */
export function hostPlaneSignals(dataDir: string, plane: RestartablePlane, log: (line: string) => void): () => void {
  const release = claimPidFile(dataDir);
  const onHup = (): void => {
    log('SIGHUP: restarting the components in turn');
    void plane.restartInTurn(log).catch((err: unknown) => log(`restart in turn failed: ${(err as Error).message}`));
  };
  process.on('SIGHUP', onHup);
  return () => {
    process.off('SIGHUP', onHup);
    release();
  };
}
