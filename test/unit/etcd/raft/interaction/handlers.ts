// The script commands (names and arguments from etcd-io/raft's rafttest):
//
//   add-nodes N [voters=(1,2,3)] [learners=(4)] [index=I] [prevote] [checkquorum] [inflight=K]
//       N new nodes with the next ids; with voters=, each starts from a snapshot
//       at index I (default 1, term 1) of that configuration, else empty;
//       inflight= bounds the appends in flight per follower (default 256).
//   campaign ID | propose ID DATA | read-index ID CTX
//   propose-conf-change ID, body: one change per script: vN (add voter), lN (add learner), rN (remove)
//   process-ready [ID...] | deliver-msgs [ID...] [drop=(ID,...)] | stabilize [ID...]
//   tick-heartbeat ID... | tick-election ID... | log-level none|info|debug
//       (none silences the trace — Readies, deliveries, log lines — but not
//       the answers of the queries below, nor errors)
//   raft-log ID | raft-state | status ID | applied ID
//   transfer-leadership from=ID to=ID | report-unreachable ID to=PEER
//   report-snapshot ID to=PEER [failure]     the leader learns how sending a snapshot went
//   snapshot ID (the app snapshots at its applied index) | compact ID INDEX
//   isolate ID | heal        traffic to/from ID is dropped on delivery

import { ConfChangeType, SnapshotStatus, type ConfChange, type Config, type Snapshot } from '../../../../../main/etcd/raft/index';
import { TestCaseArgs, type TestCase } from '../../../../support/datadriven';
import { describeEntries, describeSnapshot, describeStatus } from './describe';
import type { InteractionEnv } from './env';

const enc = (s: string) => new TextEncoder().encode(s);

function ids(env: InteractionEnv, a: TestCaseArgs): bigint[] {
  const pos = a.positional().filter((w) => /^\d+$/.test(w));
  return pos.length ? pos.map(BigInt) : env.sortedIds();
}

function first(a: TestCaseArgs): bigint {
  const w = a.positional()[0];
  if (!w || !/^\d+$/.test(w)) throw new Error('expected a node id');
  return BigInt(w);
}

function parseConfChange(body: string): ConfChange {
  const toks = body.trim().split(/\s+/).filter(Boolean);
  // Joint consensus (ConfChangeV2 with several changes) is not implemented by the core.
  if (toks.length !== 1) throw new Error(`one single-step change expected, got ${JSON.stringify(body)}`);
  const m = /^([vlr])(\d+)$/.exec(toks[0]!);
  if (!m) throw new Error(`bad conf change ${toks[0]}`);
  const type = { v: ConfChangeType.AddNode, l: ConfChangeType.AddLearnerNode, r: ConfChangeType.RemoveNode }[m[1] as 'v' | 'l' | 'r'];
  return { type, nodeId: BigInt(m[2]!), context: new Uint8Array() };
}

function catching(env: InteractionEnv, f: () => void): void {
  try {
    f();
  } catch (e) {
    env.show(`error: ${(e as Error).message || (e as Error).constructor.name}`);
  }
}

export function handle(env: InteractionEnv, tc: TestCase): string {
  const a = new TestCaseArgs(tc);
  switch (tc.cmd) {
    case 'add-nodes': {
      const count = Number(a.positional()[0]);
      const voters = a.list('voters').map(BigInt);
      const learners = a.list('learners').map(BigInt);
      const index = Number(a.get('index') ?? 1);
      const snap: Snapshot | undefined = voters.length
        ? { data: new Uint8Array(), metadata: { index, term: 1, confState: { voters, learners } } }
        : undefined;
      const over: Partial<Config> = { preVote: a.has('prevote'), checkQuorum: a.has('checkquorum') };
      if (a.has('inflight')) over.maxInflightMsgs = Number(a.get('inflight'));
      const next = env.nodes.size + 1;
      for (let i = 0; i < count; i++) {
        const id = BigInt(next + i);
        env.addNode(id, snap, over);
        env.write(`INFO ${id} ${snap ? `starts from snapshot ${describeSnapshot(snap)}` : 'starts empty'}`);
      }
      break;
    }
    case 'campaign':
      catching(env, () => env.get(first(a)).node.campaign());
      break;
    case 'propose':
      catching(env, () => env.get(first(a)).node.propose(enc(a.positional()[1] ?? '')));
      break;
    case 'propose-conf-change':
      catching(env, () => env.get(first(a)).node.proposeConfChange(parseConfChange(tc.input)));
      break;
    case 'read-index':
      catching(env, () => env.get(first(a)).node.readIndex(enc(a.positional()[1] ?? '')));
      break;
    case 'process-ready':
      for (const id of ids(env, a)) env.processReady(id);
      break;
    case 'deliver-msgs': {
      const drop = a.list('drop').map(BigInt);
      for (const id of drop) env.deliver(id, true);
      if (!a.has('drop') || a.positional().length) for (const id of ids(env, a)) env.deliver(id, false);
      break;
    }
    case 'stabilize':
      env.stabilize(ids(env, a));
      break;
    case 'tick-heartbeat':
      for (const id of ids(env, a)) {
        const n = env.get(id);
        for (let i = 0; i < n.config.heartbeatTick; i++) n.node.tick();
      }
      break;
    case 'tick-election':
      for (const id of ids(env, a)) {
        const n = env.get(id);
        for (let i = 0; i < n.config.electionTick; i++) n.node.tick();
      }
      break;
    case 'log-level': {
      const lvl = a.positional()[0];
      if (lvl !== 'none' && lvl !== 'info' && lvl !== 'debug') throw new Error(`unknown log level ${lvl}`);
      env.logLevel = lvl;
      break;
    }
    case 'raft-log': {
      const s = env.get(first(a)).storage;
      const lo = s.firstIndex();
      const hi = s.lastIndex() + 1;
      env.show(hi > lo ? describeEntries(s.entries(lo, hi, Infinity)) : `log is empty: first index=${lo}, last index=${hi - 1}`);
      break;
    }
    case 'raft-state':
      env.show(env.raftState());
      break;
    case 'status': {
      const n = env.get(first(a)).node;
      env.show(describeStatus(n.status(), n.raft.prs.progress));
      break;
    }
    case 'applied':
      env.show(env.get(first(a)).applied.join(' ') || '<nothing>');
      break;
    case 'transfer-leadership': {
      const from = BigInt(a.get('from')!);
      catching(env, () => env.get(from).node.transferLeader(BigInt(a.get('to')!)));
      break;
    }
    case 'report-snapshot':
      env.get(first(a)).node.reportSnapshot(BigInt(a.get('to')!), a.has('failure') ? SnapshotStatus.Failure : SnapshotStatus.Finish);
      break;
    case 'report-unreachable':
      env.get(first(a)).node.reportUnreachable(BigInt(a.get('to')!));
      break;
    case 'snapshot': {
      const n = env.get(first(a));
      const snap = n.storage.createSnapshot(n.node.raft.raftLog.applied, n.node.raft.prs.confState(), enc('app'));
      env.show(describeSnapshot(snap));
      break;
    }
    case 'compact': {
      const n = env.get(first(a));
      n.storage.compact(Number(a.positional()[1]));
      env.show(`first index=${n.storage.firstIndex()}`);
      break;
    }
    case 'isolate':
      env.isolated.add(first(a));
      break;
    case 'heal':
      env.isolated.clear();
      break;
    default:
      throw new Error(`unknown command ${tc.cmd}`);
  }
  return env.flush() + '\n';
}
