import { describe, expect, it } from 'vitest';
import { clusterLayout } from '../../../main/controlplane/localCluster';
import type { MemberClient, WireStatus } from '../../../main/client/etcd/memberClient';
import { memberAction, shellQuote, type ActionDeps } from '../../../main/console/memberActions';
import type { ControlledProcess } from '../../../main/console/cluster';

const layout = clusterLayout({ dataDir: '/d', portBase: 28600, program: { command: 'x', args: [] }, tls: true });
const ids: Record<string, string> = { m1: '11', m2: '22', m3: '4096' };

function status(name: string, leader: string): WireStatus {
  return {
    header: { cluster_id: '1', member_id: ids[name]!, revision: '1', raft_term: '2' },
    version: '3.4.23', dbSize: '0', leader, raftIndex: '5', raftTerm: '2', raftAppliedIndex: '5', errors: [], dbSizeInUse: '0', isLearner: false,
  };
}

function deps(leader: string, calls: string[], opts: { moveError?: string; processControl?: boolean; writable?: boolean } = {}): ActionDeps {
  const processControl = opts.processControl ?? true;
  return {
    mode: processControl ? 'embedded' : 'external',
    capabilities: { processControl, snapshotRestore: processControl },
    writable: opts.writable ?? true,
    members: layout,
    memberClient: (name) =>
      ({
        status: async () => status(name, leader),
        moveLeader: async (target: string) => {
          calls.push(`${name}.moveLeader(${target})`);
          if (opts.moveError) throw Object.assign(new Error(`UNKNOWN: ${opts.moveError}`), { details: opts.moveError });
          return {};
        },
        defragment: async () => {
          calls.push(`${name}.defragment`);
          return {};
        },
      }) as unknown as MemberClient,
    process: (name) => {
      if (!processControl || !['m1', 'm2', 'm3', 'apiserver'].includes(name)) return undefined;
      return {
        pid: 4242, running: true, state: 'running',
        stop: async () => void calls.push(`${name}.stop`), kill: async () => void calls.push(`${name}.kill`),
        restart: async () => void calls.push(`${name}.restart`), pause: () => true, resume: () => false, start: () => void calls.push(`${name}.start`),
      } as unknown as ControlledProcess;
    },
    commandLine: () => ({ program: { command: '/usr/bin/node', args: ['/opt/my app/cli.js', 'etcd'], env: { ELECTRON_RUN_AS_NODE: '1' } }, args: ['--name', 'm2'] }),
  };
}

describe('member actions and the commands they teach', () => {
  it('make-leader sends MoveLeader to the current leader and answers as etcdctl does', async () => {
    const calls: string[] = [];
    const r = await memberAction(deps('11', calls), 'm3', 'make-leader');
    expect(calls).toEqual(['m1.moveLeader(4096)']);
    expect(r).toEqual({
      ok: true,
      message: 'Leadership transferred from 000000000000000b to 0000000000001000',
      command: 'etcdctl --endpoints=https://127.0.0.1:28600 move-leader 0000000000001000',
    });
  });

  it('make-leader reports the server error', async () => {
    const r = await memberAction(deps('11', [], { moveError: 'etcdserver: request timed out, leader transfer took too long' }), 'm2', 'make-leader');
    expect(r).toMatchObject({ ok: false, message: 'etcdserver: request timed out, leader transfer took too long' });
  });

  it('make-leader without a leader, and on the leader itself', async () => {
    expect(await memberAction(deps('0', []), 'm2', 'make-leader')).toMatchObject({ ok: false, message: 'no leader: no member reports itself as leader' });
    expect(await memberAction(deps('11', []), 'm1', 'make-leader')).toMatchObject({ ok: false, message: 'm1 is already the leader' });
  });

  const cases = [
    { action: 'defrag', want: { ok: true, message: 'Finished defragmenting etcd member[https://127.0.0.1:28602]', command: 'etcdctl defrag --endpoints=https://127.0.0.1:28602' }, calls: ['m2.defragment'] },
    { action: 'kill', want: { ok: true, command: 'kill -9 4242' }, calls: ['m2.kill'] },
    { action: 'stop', want: { ok: true, command: 'kill -TERM 4242' }, calls: ['m2.stop'] },
    { action: 'pause', want: { ok: true, command: 'kill -STOP 4242' }, calls: [] },
    { action: 'resume', want: { ok: false, message: 'm2 is running, not paused', command: 'kill -CONT 4242' }, calls: [] },
    { action: 'restart', want: { ok: true, command: "kill -TERM 4242; ELECTRON_RUN_AS_NODE=1 /usr/bin/node '/opt/my app/cli.js' etcd --name m2" }, calls: ['m2.restart'] },
  ] as const;
  for (const c of cases) {
    it(`${c.action} on m2`, async () => {
      const calls: string[] = [];
      expect(await memberAction(deps('11', calls), 'm2', c.action)).toMatchObject(c.want);
      expect(calls).toEqual(c.calls);
    });
  }

  it('etcd-only actions on the API server, and unknown components', async () => {
    expect(await memberAction(deps('11', []), 'apiserver', 'defrag')).toEqual({ ok: false, message: 'apiserver is not an etcd member', command: '' });
    expect(await memberAction(deps('11', []), 'm9', 'stop')).toEqual({ ok: false, message: 'no member m9', command: '' });
  });

  it('on an attached cluster the process actions are not possible, the etcd ones still are', async () => {
    const calls: string[] = [];
    const attached = deps('11', calls, { processControl: false });
    expect(await memberAction(attached, 'm2', 'kill')).toEqual({
      ok: false,
      message: 'kill m2 is not possible on an attached cluster: its processes are not run by this console',
      command: '',
    });
    expect(await memberAction(attached, 'm9', 'stop')).toEqual({ ok: false, message: 'no member m9', command: '' });
    expect(await memberAction(attached, 'm2', 'defrag')).toMatchObject({ ok: true });
    expect(calls).toEqual(['m2.defragment']);
  });

  it('attached read-only, the etcd actions that change the cluster are refused before any call', async () => {
    const calls: string[] = [];
    const readOnly = deps('11', calls, { processControl: false, writable: false });
    for (const action of ['defrag', 'make-leader'] as const) {
      expect(await memberAction(readOnly, 'm2', action)).toEqual({
        ok: false,
        message: `${action} m2 is refused: the console is attached to this cluster read-only (attach it with --writable to allow changes)`,
        command: '',
      });
    }
    expect(calls).toEqual([]);
  });

  it('quotes shell words only when needed', () => {
    expect(['a/b-c.d', "it's", 'two words', '--x=1'].map(shellQuote)).toEqual(['a/b-c.d', `'it'\\''s'`, "'two words'", '--x=1']);
  });
});
