// Membership changes through Debian's etcdctl 3.4: `member add --learner`
// prints what an operator pastes into the new member's environment; the new
// member, started with --initial-cluster-state existing, joins as a learner,
// refuses writes, is promoted (from a follower's endpoint: forwarded to the
// leader), has its peer URLs updated, and is removed, after which its
// process exits by itself. Error texts for promote of a voter, removal of an
// unknown id and a peer URL already in use. Last, the leader is removed. PILOTHOUSE_TEST_IMPL=etcd runs
// the same against Debian's etcd.
// Ports 25100–25199: the cluster on 25100–25105, the fourth member on 25106/25107.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memberLogTails, programFor, reapClusters, startTestCluster, TARGET, waitForLeader, type TestCluster } from '../../support/cluster';
import { etcdctl, parseJsonWithBigIds } from '../../support/etcdctl';
import { eventually } from '../../support/waitFor';

const waitOpts = { intervalMs: 200, detail: () => `${memberLogTails(tc.cluster)}\n--- m4\n${readM4Log()}` };

const PORT_BASE = 25100;
const M4_CLIENT = 'http://127.0.0.1:25106';
const M4_PEER = 'http://127.0.0.1:25107';

let tc: TestCluster;
let m4: ChildProcess | undefined;
let m4Exit: Promise<number | null> | undefined;
let m4Log = '';

interface ListedMember {
  id: string;
  status: string;
  name: string;
  peers: string;
  clients: string;
  learner: string;
}

/** `member list` (simple format): "id, started, name, peers, clients, isLearner". */
async function memberList(endpoints = tc.endpoints): Promise<ListedMember[]> {
  const r = await etcdctl(['member', 'list'], { endpoints });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout
    .trim()
    .split('\n')
    .map((line) => {
      const [id, status, name, peers, clients, learner] = line.split(', ');
      return { id: id!, status: status!, name: name!, peers: peers!, clients: clients!, learner: learner! };
    });
}

/** etcdctl's own error line (a client-side retry warning may come first). */
function errorLine(stderr: string): string {
  return stderr.trim().split('\n').at(-1) ?? '';
}

function readM4Log(): string {
  try {
    return readFileSync(m4Log, 'utf8').split('\n').slice(-30).join('\n');
  } catch {
    return '(no log)';
  }
}

function startM4(initialCluster: string): void {
  const program = programFor(TARGET);
  mkdirSync(join(tc.dir, 'logs'), { recursive: true });
  m4Log = join(tc.dir, 'logs', 'm4.log');
  const fd = openSync(m4Log, 'a');
  const flags = [
    '--name', 'm4',
    '--data-dir', join(tc.dir, 'm4'),
    '--listen-client-urls', M4_CLIENT,
    '--advertise-client-urls', M4_CLIENT,
    '--listen-peer-urls', M4_PEER,
    '--initial-advertise-peer-urls', M4_PEER,
    '--initial-cluster', initialCluster,
    '--initial-cluster-state', 'existing',
  ];
  m4 = spawn(program.command, [...program.args, ...flags], { env: { ...process.env, ...program.env }, stdio: ['ignore', fd, fd] });
  const child = m4;
  m4Exit = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

beforeAll(async () => {
  tc = await startTestCluster(TARGET, PORT_BASE);
  await waitForLeader(tc.endpoints, 20_000);
}, 60_000);

afterAll(async () => {
  if (m4 && m4.exitCode === null && m4.signalCode === null) {
    m4.kill('SIGKILL');
    await m4Exit;
  }
  await reapClusters();
});

describe(`membership changes (${TARGET})`, () => {
  let m4Id = '';

  it('member add --learner prints the new member and the environment to start it with', async () => {
    // etcd refuses reconfiguration until every voter has been connected for 5 s ("unhealthy cluster").
    const r = await eventually('a healthy cluster for member add', async () => {
      const res = await etcdctl(['member', 'add', 'm4', '--learner', `--peer-urls=${M4_PEER}`], { endpoints: tc.endpoints });
      if (res.code === 0) return res;
      expect(errorLine(res.stderr)).toBe('Error: etcdserver: unhealthy cluster');
      return undefined;
    }, { ...waitOpts, timeoutMs: 20_000 });
    const lines = r.stdout.trim().split('\n');
    // etcdctl prints both ids with %16x: an id below 2^60 is padded with spaces.
    const added = /^Member +([0-9a-f]+) added to cluster +([0-9a-f]+)$/.exec(lines[0]!);
    expect(added, r.stdout).not.toBeNull();
    m4Id = added![1]!;
    expect(lines[1]).toBe('');
    expect(lines[2]).toBe('ETCD_NAME="m4"');
    const cluster = /^ETCD_INITIAL_CLUSTER="(.*)"$/.exec(lines[3]!)![1]!;
    expect(cluster.split(',').sort()).toEqual(
      [...tc.cluster.layout.map((m) => `${m.name}=${m.peerUrl}`), `m4=${M4_PEER}`].sort(),
    );
    expect(lines[4]).toBe(`ETCD_INITIAL_ADVERTISE_PEER_URLS="${M4_PEER}"`);
    expect(lines[5]).toBe('ETCD_INITIAL_CLUSTER_STATE="existing"');

    // Until it starts, the member is listed without a name or client URLs.
    const listed = (await memberList()).find((m) => m.id === m4Id);
    expect(listed).toEqual({ id: m4Id, status: 'unstarted', name: '', peers: M4_PEER, clients: '', learner: 'true' });

    startM4(cluster);
  }, 30_000);

  it('the new member joins as a started learner that serves status but refuses writes', async () => {
    const listed = await eventually('m4 started', async () => {
      const m = (await memberList()).find((x) => x.id === m4Id);
      return m?.status === 'started' ? m : undefined;
    }, { ...waitOpts, timeoutMs: 20_000 });
    expect(listed).toEqual({ id: m4Id, status: 'started', name: 'm4', peers: M4_PEER, clients: M4_CLIENT, learner: 'true' });

    const st = await etcdctl(['endpoint', 'status', '-w', 'json'], { endpoints: [M4_CLIENT] });
    expect(st.code, st.stderr).toBe(0);
    const [row] = parseJsonWithBigIds(st.stdout) as { Status: { isLearner?: boolean } }[];
    expect(row!.Status.isLearner).toBe(true);

    const put = await etcdctl(['put', 'k', 'v'], { endpoints: [M4_CLIENT] });
    expect(put.code).toBe(1);
    expect(put.stderr).toContain('etcdserver: rpc not supported for learner');
  }, 30_000);

  it('member promote through a follower makes it a voter; promoting a voter fails', async () => {
    const leader = await waitForLeader(tc.endpoints, 10_000);
    const follower = tc.endpoints.find((e) => e !== leader.endpoint)!;
    // The learner may still be catching up (learnerNotReady): etcdctl is simply run again.
    const r = await eventually('promote', async () => {
      const res = await etcdctl(['member', 'promote', m4Id], { endpoints: [follower] });
      if (res.code === 0) return res;
      expect(res.stderr).toContain('can only promote a learner member which is in sync with leader');
      return undefined;
    }, { ...waitOpts, timeoutMs: 20_000 });
    expect(r.stdout.trim()).toMatch(new RegExp(`^Member +${m4Id} promoted in cluster +[0-9a-f]+$`));
    const listed = (await memberList()).find((m) => m.id === m4Id);
    expect(listed?.learner).toBe('false');

    const st = await eventually('m4 status as voter', async () => {
      const s = await etcdctl(['endpoint', 'status', '-w', 'json'], { endpoints: [M4_CLIENT] });
      const [row] = parseJsonWithBigIds(s.stdout) as { Status: { isLearner?: boolean } }[];
      return s.code === 0 && !row!.Status.isLearner ? row : undefined;
    }, { ...waitOpts, timeoutMs: 20_000 });
    expect(st.Status.isLearner ?? false).toBe(false);
    // A voter now: it takes writes.
    const put = await etcdctl(['put', 'k', 'v'], { endpoints: [M4_CLIENT] });
    expect(put.code, put.stderr).toBe(0);

    const again = await etcdctl(['member', 'promote', m4Id], { endpoints: tc.endpoints });
    expect(again.code).toBe(1);
    expect(errorLine(again.stderr)).toBe('Error: etcdserver: can only promote a learner member');
  }, 60_000);

  it('member update changes the peer URLs every member sees', async () => {
    const urls = `${M4_PEER},http://localhost:25107`;
    const r = await etcdctl(['member', 'update', m4Id, `--peer-urls=${urls}`], { endpoints: tc.endpoints });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(new RegExp(`^Member +${m4Id} updated in cluster +[0-9a-f]+$`));
    for (const endpoint of [...tc.endpoints, M4_CLIENT]) {
      await eventually(`update seen by ${endpoint}`, async () => {
        const m = (await memberList([endpoint])).find((x) => x.id === m4Id);
        return m?.peers === urls ? m : undefined;
      }, { ...waitOpts, timeoutMs: 20_000 });
    }
  }, 30_000);

  it('errors: a peer URL in use, removing an unknown member', async () => {
    // The health check comes first: m4's streams were just re-pointed by the update.
    const dup = await eventually('a healthy cluster for member add', async () => {
      const res = await etcdctl(['member', 'add', 'm5', `--peer-urls=${tc.cluster.layout[0]!.peerUrl}`], { endpoints: tc.endpoints });
      return errorLine(res.stderr) === 'Error: etcdserver: unhealthy cluster' ? undefined : res;
    }, { ...waitOpts, timeoutMs: 20_000 });
    expect(dup.code).toBe(1);
    expect(errorLine(dup.stderr)).toBe('Error: etcdserver: Peer URLs already exists');

    const unknown = await etcdctl(['member', 'remove', '1234abcd'], { endpoints: tc.endpoints });
    expect(unknown.code).toBe(1);
    expect(errorLine(unknown.stderr)).toBe('Error: etcdserver: member not found');
  }, 30_000);

  it('member remove: the list is back to three and the removed member exits', async () => {
    const r = await etcdctl(['member', 'remove', m4Id], { endpoints: tc.endpoints });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(new RegExp(`^Member +${m4Id} removed from cluster +[0-9a-f]+$`));
    const listed = await memberList();
    expect(listed.map((m) => m.name).sort()).toEqual(['m1', 'm2', 'm3']);

    const code = await Promise.race([m4Exit!, new Promise<'running'>((r) => setTimeout(() => r('running'), 15_000))]);
    expect(code, readM4Log()).toBe(0); // etcd exits 0 once removed

    // Its id is gone for good: removing it again fails.
    const again = await etcdctl(['member', 'remove', m4Id], { endpoints: tc.endpoints });
    expect(again.code).toBe(1);
    expect(errorLine(again.stderr)).toBe('Error: etcdserver: member not found');
    const put = await etcdctl(['put', 'after', 'removal'], { endpoints: tc.endpoints });
    expect(put.code, put.stderr).toBe(0);
  }, 40_000);

  it('removing the leader: it stops, the other two elect a leader and keep serving', async () => {
    const leader = await waitForLeader(tc.endpoints, 10_000);
    const leaderId = BigInt(leader.memberId).toString(16);
    const name = tc.cluster.layout.find((m) => m.endpoint === leader.endpoint)!.name;
    const rest = tc.endpoints.filter((e) => e !== leader.endpoint);
    const r = await eventually('a healthy cluster for member remove', async () => {
      const res = await etcdctl(['member', 'remove', leaderId], { endpoints: rest });
      return errorLine(res.stderr) === 'Error: etcdserver: unhealthy cluster' ? undefined : res;
    }, { ...waitOpts, timeoutMs: 20_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(new RegExp(`^Member +${leaderId} removed from cluster +[0-9a-f]+$`));
    const proc = tc.cluster.member(name);
    await eventually(`${name} to exit`, async () => (proc.running ? undefined : true), { ...waitOpts, timeoutMs: 20_000 });
    const next = await waitForLeader(rest, 15_000);
    expect(next.memberId).not.toBe(leader.memberId);
    expect((await memberList(rest)).map((m) => m.id)).not.toContain(leaderId);
    const put = await etcdctl(['put', 'after', 'leader-removal'], { endpoints: rest });
    expect(put.code, put.stderr).toBe(0);
  }, 60_000);
});
