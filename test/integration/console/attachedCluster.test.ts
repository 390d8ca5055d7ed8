// The console attached to a cluster it does not run: three Debian etcd 3.4
// members with mutual TLS, with Pilothouse's API server writing Kubernetes
// objects into them, reached through the same BridgeHandlers the web host
// and Electron call:
//   - the Members view's facts from the members themselves (names, ids, the
//     leader, terms, etcd's version, DB sizes);
//   - a put from outside in Watch events, a Kubernetes object decoded;
//   - the leader killed from outside in the leader timeline;
//   - read-only: defrag and move-leader refused, process actions impossible,
//     restore refused — nothing reaches the members;
//   - the errors people hit (a wrong CA, a client certificate the members do
//     not accept, an http URL for an https member, nothing listening), each
//     said plainly, and the console still answering.
// Ports 26700–26706 (etcd 26700–26705, the API server 26706); 26710 stays unbound.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BridgeEventName, BridgeEvents, EventSink } from '../../../preload/contract';
import { ensureClusterPki, type ClusterPki } from '../../../main/common/pki/clusterPki';
import { createAttachedConsoleServices, type AttachedConsoleServices } from '../../../main/console/consoleServices';
import type { EtcdConnection } from '../../../main/console/attachedCluster';
import { reapApiServers, startTestApiServer, type TestApiServer } from '../../support/apiserver';
import { CLI_JS } from '../../support/cluster';
import { eventually } from '../../support/waitFor';

const PORT_BASE = 26700;

class Sink implements EventSink {
  emit<E extends BridgeEventName>(_name: E, _payload: BridgeEvents[E]): void {}
}

let api: TestApiServer;
let pki: ClusterPki;
let other: ClusterPki;
const scratch = mkdtempSync(join(tmpdir(), 'pilothouse-attached-'));
const opened: AttachedConsoleServices[] = [];

function etcdConn(): EtcdConnection {
  return { endpoints: api.tc.cluster.layout.map((m) => m.clientUrl), cacert: pki.ca.cert, cert: pki.client.cert, key: pki.client.key };
}

async function attach(etcd: EtcdConnection, writable = false): Promise<AttachedConsoleServices> {
  const dataDir = mkdtempSync(join(scratch, 'console-'));
  const svc = createAttachedConsoleServices({ dataDir, cliPath: CLI_JS, runtime: 'web', events: new Sink(), startTimeoutMs: 8_000, attach: { name: 'prod', etcd, kube: { kubeconfig: api.layout.kubeconfig }, writable } });
  opened.push(svc);
  await svc.start();
  return svc;
}

beforeAll(async () => {
  api = await startTestApiServer(PORT_BASE, [], 'etcd');
  pki = api.tc.cluster.pki!;
  other = await ensureClusterPki(join(scratch, 'other-pki'), ['m1']);
}, 180_000);

afterAll(async () => {
  for (const s of opened) await s.dispose();
  await reapApiServers();
  rmSync(scratch, { recursive: true, force: true });
});

describe('attached to three Debian etcd 3.4 members with mutual TLS, read-only', () => {
  let svc: AttachedConsoleServices;
  beforeAll(async () => {
    svc = await attach(etcdConn());
  }, 60_000);

  it('finds the members from member list and shows what they say of themselves', async () => {
    const steps = await svc.handlers.startupProgress();
    expect(steps.map((s) => [s.id, s.state])).toEqual([['etcd', 'done'], ['kube', 'done']]);
    expect(steps[0]!.detail).toMatch(/^3 members \(listed by https:\/\/127\.0\.0\.1:2670\d\): m1 https:\/\/127\.0\.0\.1:26700, m2 https:\/\/127\.0\.0\.1:26702, m3 https:\/\/127\.0\.0\.1:26704$/);
    const members = await svc.handlers.members();
    expect(members.map((m) => m.name)).toEqual(['m1', 'm2', 'm3']);
    for (const m of members) {
      expect(m.healthy, m.name).toBe(true);
      expect(m.id).toMatch(/^[0-9a-f]{16}$/);
      expect(m.version).toMatch(/^3\.4\./);
      expect(m.dbSize).toBeGreaterThan(0);
      expect(Number(m.raftTerm)).toBeGreaterThan(0);
      expect(m.process).toBeUndefined();
    }
    expect(members.filter((m) => m.isLeader)).toHaveLength(1);
    const o = await svc.handlers.overview();
    expect(o.mode).toBe('external');
    expect(o.components).toEqual([]);
  });

  it('read-only: defrag and move-leader are refused, process actions impossible, restore refused', async () => {
    for (const action of ['defrag', 'make-leader'] as const) {
      const r = await svc.handlers.memberAction({ member: 'm2', action });
      expect(r).toEqual({ ok: false, message: `${action} m2 is refused: the console is attached to this cluster read-only (attach it with --writable to allow changes)`, command: '' });
    }
    expect((await svc.handlers.memberAction({ member: 'm2', action: 'kill' })).message).toBe('kill m2 is not possible on an attached cluster: its processes are not run by this console');
    expect(() => svc.handlers.restoreSnapshot({ name: 'x.db' })).toThrow('restoring a snapshot is not possible on an attached cluster');
    expect((await svc.handlers.componentAction({ component: 'apiserver', action: 'kill' })).message).toBe('no component apiserver');
    expect((await svc.handlers.walkthroughKinds()).map((k) => k.kind)).toEqual(['backup', 'drill']);
  });

  it('a put from outside and a Kubernetes object written by the API server appear in Watch events, decoded', async () => {
    expect((await api.etcdctl(['put', '/outside/key', 'from etcdctl'])).code).toBe(0);
    expect((await api.kubectl(['create', 'configmap', 'attached-cm', '--from-literal=k=v'])).code).toBe(0);
    const events = await eventually(
      'both events in the feed',
      async () => {
        const recent = await svc.handlers.recentWatchEvents({ limit: 200 });
        const put = recent.find((e) => e.key === '/outside/key');
        const cm = recent.find((e) => e.key === '/registry/configmaps/default/attached-cm');
        return put && cm ? { put, cm } : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    const detail = await svc.handlers.watchEventDetail({ seq: events.cm.seq });
    expect(JSON.stringify(detail)).toContain('attached-cm');
  });

  it('the leader killed from outside shows in the leader timeline', async () => {
    const members = await svc.handlers.members();
    const leader = members.find((m) => m.isLeader)!;
    const before = (await svc.handlers.leaderTimeline()).length;
    await api.tc.cluster.member(leader.name).kill('SIGKILL');
    const change = await eventually(
      'a new leader in the timeline',
      async () => (await svc.handlers.leaderTimeline()).slice(before).find((e) => (e.kind === 'changed' || e.kind === 'elected') && e.leader !== undefined && e.leader !== leader.name),
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    expect(change.leader).not.toBe(leader.name);
    api.tc.cluster.member(leader.name).start();
    await eventually('the old leader back', async () => (await svc.handlers.members()).every((m) => m.healthy), { timeoutMs: 30_000, intervalMs: 300 });
  });
});

describe('the errors people hit', () => {
  it('a CA that did not sign the members, a client certificate they do not accept, http for https, nothing listening: each said, the console still answers', async () => {
    const good = etcdConn();
    const cases: { name: string; conn: EtcdConnection; want: RegExp }[] = [
      { name: 'wrong CA', conn: { ...good, cacert: other.ca.cert }, want: /the member's certificate is not signed by the CA given/ },
      { name: 'wrong client certificate', conn: { ...good, cert: other.client.cert, key: other.client.key }, want: /the member refused the client certificate/ },
      { name: 'http for https', conn: { ...good, endpoints: good.endpoints.map((e) => e.replace('https:', 'http:')) }, want: /the member probably speaks TLS|the member speaks TLS/ },
      { name: 'nothing listening', conn: { ...good, endpoints: ['https://127.0.0.1:26710'] }, want: /nothing listens there \(connection refused\)/ },
    ];
    for (const c of cases) {
      const svc = await attach(c.conn);
      const etcdStep = (await svc.handlers.startupProgress()).find((s) => s.id === 'etcd')!;
      expect(etcdStep.state, c.name).toBe('failed');
      expect(etcdStep.detail, c.name).toMatch(c.want);
      // the console keeps answering
      expect((await svc.handlers.overview()).mode).toBe('external');
      expect(Array.isArray(await svc.handlers.members())).toBe(true);
      await svc.dispose();
    }
  }, 120_000);
});
