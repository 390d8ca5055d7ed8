// "Kill the leader": the seed articles' failover demonstration, measured.
// Find the leader (the member whose Status names itself, at the highest
// term), kill -9 it, ask the surviving members' Status every POLL_MS until one
// names a different leader at a higher term, and report the time from the
// signal to that answer. The killed member is restarted afterwards (also when
// no new leader appeared in time), and both moments go into the timeline.

import type { FailoverResult } from '../../preload/contract';
import type { LeaderTimeline } from './leaderTimeline';
import type { WireStatus } from '../client/etcd/memberClient';
import { notPossible, readOnly, type ConsoleCluster } from './cluster';

/** What the experiment needs of the cluster: it must run the members' processes (capabilities.processControl) and allow changes (writable). */
export type FailoverCluster = Pick<ConsoleCluster, 'mode' | 'capabilities' | 'writable' | 'members' | 'memberClient' | 'process'>;

export const POLL_MS = 20;
const DEFAULT_TIMEOUT_MS = 20_000;

async function statuses(deps: FailoverCluster, names: string[], timeoutMs: number): Promise<Map<string, WireStatus>> {
  const out = new Map<string, WireStatus>();
  await Promise.all(
    names.map(async (n) => {
      try {
        out.set(n, await deps.memberClient(n).status(timeoutMs));
      } catch {
        // down or slow: not part of this round
      }
    }),
  );
  return out;
}

const bigger = (a: string, b: string) => BigInt(a) > BigInt(b);

/** Both moments (the kill and the new leader) go into the timeline. */
export async function killLeaderExperiment(deps: FailoverCluster, timeline: LeaderTimeline, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<FailoverResult> {
  if (!deps.capabilities.processControl) throw new Error(notPossible('the kill-the-leader experiment', deps));
  if (!deps.writable) throw new Error(readOnly('the kill-the-leader experiment'));
  const names = deps.members.map((m) => m.name);
  const before = await statuses(deps, names, 1_000);
  const nameById = new Map<string, string>();
  for (const [n, st] of before) if (st.header) nameById.set(st.header.member_id, n);
  let leaderName: string | undefined;
  let oldTerm = '-1';
  for (const [n, st] of before) {
    if (st.header && st.leader === st.header.member_id && bigger(st.raftTerm, oldTerm)) {
      leaderName = n;
      oldTerm = st.raftTerm;
    }
  }
  if (!leaderName) throw new Error('no leader to kill: no member reports itself as leader');
  const oldLeaderId = before.get(leaderName)!.header!.member_id;
  const proc = deps.process(leaderName);
  if (!proc?.running) throw new Error(`${leaderName} is the leader but its process is not the supervisor's to kill`);

  const t0 = performance.now();
  await proc.kill();
  timeline.observe({ at: Date.now(), term: oldTerm, deposed: leaderName });

  const others = names.filter((n) => n !== leaderName);
  const deadline = t0 + timeoutMs;
  let found: { name: string; term: string } | undefined;
  let failoverMs = 0;
  try {
    while (!found && performance.now() < deadline) {
      const round = await statuses(deps, others, 250);
      for (const st of round.values()) {
        if (st.leader !== '0' && st.leader !== oldLeaderId && bigger(st.raftTerm, oldTerm)) {
          const name = nameById.get(st.leader);
          if (name) {
            failoverMs = Math.round((performance.now() - t0) * 10) / 10;
            found = { name, term: st.raftTerm };
            break;
          }
        }
      }
      if (!found) await new Promise((r) => setTimeout(r, POLL_MS));
    }
  } finally {
    proc.start();
  }
  if (!found) throw new Error(`no new leader within ${timeoutMs} ms after killing ${leaderName}; ${leaderName} was restarted`);
  timeline.observe({ at: Date.now(), leader: found.name, term: found.term });
  return { killed: leaderName, oldTerm, newLeader: found.name, newTerm: found.term, failoverMs, restarted: true };
}
