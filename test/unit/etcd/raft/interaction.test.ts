// Data-driven interaction scripts (in the spirit of etcd-io/raft's
// testdata/*.txt): each file in testdata/ is a sequence of commands run
// against a harness Cluster; `expect` lines check the resulting state and
// report the script line that failed.
//
// Commands:
//   cluster 1 2 3 [prevote] [checkquorum]   a bootstrapped cluster
//   campaign N | stabilize | tick [K]       drive it
//   propose N DATA | read N CTX | transfer N TO
//   add-learner N ID | add-voter N ID | remove N ID   (proposed on N; ID starts empty if new)
//   isolate N | heal
//   expect leader N            the only leader
//   expect term N T            N's term
//   expect applied N a,b,...   the data N applied (Normal, non-empty)
//   expect reads N ctx,...     ReadIndex answers N received
//   expect conf N voters=1,2 learners=3

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfChangeType, MemoryStorage, RawNode, StateType } from '../../../../main/etcd/raft/index';
import { Cluster, enc, newConfig } from './harness';

const dir = join(import.meta.dirname, 'testdata', 'expect');

function run(script: string): void {
  let c: Cluster | undefined;
  const lines = script.split('\n');
  lines.forEach((raw, i) => {
    const line = raw.replace(/#.*/, '').trim();
    if (!line) return;
    const [cmd, ...args] = line.split(/\s+/);
    const id = (k: number) => BigInt(args[k]!);
    const at = `line ${i + 1}: ${line}`;
    const cl = () => {
      if (!c) throw new Error(`${at}: no cluster yet`);
      return c;
    };
    switch (cmd) {
      case 'cluster': {
        const ids = args.filter((a) => /^\d+$/.test(a)).map(BigInt);
        c = new Cluster(ids, { preVote: args.includes('prevote'), checkQuorum: args.includes('checkquorum') });
        c.stabilize();
        return;
      }
      case 'campaign':
        cl().get(id(0)).node.campaign();
        return cl().stabilize();
      case 'stabilize':
        return cl().stabilize();
      case 'tick':
        return cl().tickAll(Number(args[0] ?? 1));
      case 'propose':
        cl().get(id(0)).node.propose(enc(args[1]!));
        return cl().stabilize();
      case 'read':
        cl().get(id(0)).node.readIndex(enc(args[1]!));
        return cl().stabilize();
      case 'transfer':
        cl().get(id(0)).node.transferLeader(id(1));
        return cl().stabilize();
      case 'add-learner':
      case 'add-voter':
      case 'remove': {
        const target = id(1);
        if (!cl().nodes.has(target)) {
          const storage = new MemoryStorage();
          cl().nodes.set(target, { id: target, node: new RawNode(newConfig(target, storage)), storage, applied: [], readStates: [] });
        }
        const type =
          cmd === 'add-learner' ? ConfChangeType.AddLearnerNode : cmd === 'add-voter' ? ConfChangeType.AddNode : ConfChangeType.RemoveNode;
        cl().get(id(0)).node.proposeConfChange({ type, nodeId: target, context: new Uint8Array() });
        return cl().stabilize();
      }
      case 'isolate':
        return cl().isolate(id(0));
      case 'heal':
        return cl().heal();
      case 'expect':
        return check(cl(), args, at);
      default:
        throw new Error(`${at}: unknown command`);
    }
  });
}

function check(c: Cluster, args: string[], at: string): void {
  const [what, n, ...rest] = args;
  const node = () => c.get(BigInt(n!));
  const list = (s: string | undefined) => (s ? s.split(',').filter(Boolean) : []);
  switch (what) {
    case 'leader':
      return void expect(c.leaders(), at).toEqual([BigInt(n!)]);
    case 'term':
      return void expect(node().node.raft.term, at).toBe(Number(rest[0]));
    case 'state':
      return void expect(StateType[node().node.raft.state], at).toBe(rest[0]);
    case 'applied':
      return void expect(c.appliedData(BigInt(n!)), at).toEqual(list(rest[0]));
    case 'reads':
      return void expect(node().readStates.map((r) => new TextDecoder().decode(r.requestCtx)), at).toEqual(list(rest[0]));
    case 'conf': {
      const cs = node().node.raft.prs.confState();
      const want = Object.fromEntries(rest.map((kv) => kv.split('=') as [string, string]));
      expect(cs.voters.map(String), at).toEqual(list(want.voters));
      expect(cs.learners.map(String), at).toEqual(list(want.learners));
      return;
    }
    default:
      throw new Error(`${at}: unknown expectation`);
  }
}

describe('interaction scripts', () => {
  const files = readdirSync(dir).filter((f) => f.endsWith('.txt'));
  it('has scripts', () => expect(files.length).toBeGreaterThan(0));
  it.each(files)('%s', (f) => run(readFileSync(join(dir, f), 'utf8')));
});
