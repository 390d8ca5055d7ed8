// Restarting a running control plane in turn, so that it keeps serving while
// every process comes back with what is on disk now (renewed certificates):
// the members one at a time, followers first and the leader last (one
// leader change, not one per member), each waited for until it serves a
// linearizable read again, so a quorum stays up throughout; then the API
// server, until /readyz; then the controllers, until the plane is usable.
// Only components that are running are restarted: one the user stopped
// stays stopped. Each step is reported as a line (`pilothouse up` prints
// them; the console's log shows them).

import { leaderName, waitApiServerReady, waitMembersHealthy, waitUsable } from './waits';
import type { RunningPlane } from './runningPlane';

export type RollingRestartReport = (line: string) => void;

/** Followers first (in layout order), then the leader; every name once. */
export function memberRestartOrder(names: readonly string[], leader: string | undefined): string[] {
  return [...names.filter((n) => n !== leader), ...names.filter((n) => n === leader)];
}

export async function restartInTurn(sup: RunningPlane, report: RollingRestartReport, timeoutMs: number): Promise<boolean> {
  const leader = await leaderName(sup);
  const members = memberRestartOrder(
    sup.layout.map((m) => m.name),
    leader,
  ).filter((n) => sup.process(n).running);
  for (const name of members) {
    const proc = sup.process(name);
    report(`restarting ${name} (${name === leader ? 'leader' : 'follower'}, pid ${proc.pid})`);
    await proc.restart();
    if (!(await waitMembersHealthy(sup, [name], Date.now() + timeoutMs))) {
      report(`${name} did not serve again within ${timeoutMs} ms; see its log; stopping the restart here`);
      return false;
    }
    report(`${name} healthy again (pid ${proc.pid})`);
  }
  const api = sup.apiserver;
  if (api?.running) {
    report(`restarting the API server (pid ${api.pid})`);
    await api.restart();
    const r = await waitApiServerReady(sup, Date.now() + timeoutMs);
    if (r.outcome !== 'ready') {
      report(`the API server is not ready again (${r.outcome === 'exited' ? 'it exited' : r.why}); see ${sup.apiLayout!.logFile}; stopping the restart here`);
      return false;
    }
    report(`API server ready again (pid ${api.pid})`);
  }
  const ctl = sup.controllers;
  if (ctl?.running && api?.running) {
    report(`restarting the controllers (pid ${ctl.pid})`);
    await ctl.restart();
    const why = await waitUsable(sup, Date.now() + timeoutMs);
    if (why !== undefined) {
      report(`the controllers did not make the plane usable again (${why}); see ${sup.controllersLayout.logFile}`);
      return false;
    }
    report(`controllers running again (pid ${ctl.pid}): leases held, nodes Ready`);
  }
  report('components restarted');
  return true;
}
