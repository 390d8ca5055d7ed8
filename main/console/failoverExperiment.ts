// "Kill the leader": the seed articles' failover demonstration, measured.
// Find the leader (the member whose Status names itself, at the highest
// term), kill -9 it, ask the surviving members' Status every POLL_MS until one
// names a different leader at a higher term, and report the time from the
// signal to that answer. The killed member is restarted afterwards (also when
// no new leader appeared in time), and both moments go into the timeline.

import type { FailoverResult } from '../../preload/contract';
import type { MemberLayout } from '../controlplane/localCluster';
import type { LeaderTimeline } from './leaderTimeline';
import type { MemberClient, WireStatus } from '../client/etcd/memberClient';
import type { SupervisedProcess } from '../controlplane/supervisedProcess';

export interface FailoverDeps {
  layout: MemberLayout[];
  client(name: string): MemberClient;
  process(name: string): SupervisedProcess;
  timeline: LeaderTimeline;
}

export const POLL_MS = 20;
const DEFAULT_TIMEOUT_MS = 20_000;

async function statuses(deps: FailoverDeps, names: string[], timeoutMs: number): Promise<Map<string, WireStatus>> {
  const out = new Map<string, WireStatus>();
  await Promise.all(
    names.map(async (n) => {
      try {
        out.set(n, await deps.client(n).status(timeoutMs));
      } catch {
        // down or slow: not part of this round
      }
    }),
  );
  return out;
}

const bigger = (a: string, b: string) => BigInt(a) > BigInt(b);

export async function killLeaderExperiment(deps: FailoverDeps, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<FailoverResult> {
  const names = deps.layout.map((m) => m.name);
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
  if (!proc.running) throw new Error(`${leaderName} is the leader but its process is not the supervisor's to kill`);

  const t0 = performance.now();
  await proc.kill();
  deps.timeline.observe({ at: Date.now(), term: oldTerm, deposed: leaderName });

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
  deps.timeline.observe({ at: Date.now(), leader: found.name, term: found.term });
  return { killed: leaderName, oldTerm, newLeader: found.name, newTerm: found.term, failoverMs, restarted: true };
}
