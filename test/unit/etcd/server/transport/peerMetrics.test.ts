import { Registry } from 'prom-client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MessageType, type MemberId, type Message } from '../../../../../main/etcd/raft/types';
import { PeerTransport } from '../../../../../main/etcd/server/transport';

const live: PeerTransport[] = [];
afterEach(async () => {
  await Promise.all(live.splice(0).map((t) => t.stop()));
});

async function start(id: MemberId, registry: Registry, got: Message[]): Promise<PeerTransport> {
  const t = new PeerTransport({ localId: id, clusterId: 7n, listenUrls: ['http://127.0.0.1:0'], metrics: registry, onMessage: (m) => got.push(m) });
  live.push(t);
  await t.start();
  return t;
}

async function waitFor(what: string, cond: () => boolean | Promise<boolean>, ms = 8000): Promise<void> {
  await vi.waitFor(async () => {
    if (!(await cond())) throw new Error(`timed out waiting for ${what}`);
  }, { timeout: ms, interval: 10 });
}

async function value(r: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const metric = r.getSingleMetric(name);
  if (!metric) throw new Error(`no metric ${name}`);
  const { values } = await metric.get();
  const hit = values.find((v) => Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want));
  return hit?.value ?? 0;
}

const msg = (from: MemberId, to: MemberId, over: Partial<Message> = {}): Message => ({
  type: MessageType.Heartbeat, to, from, term: 1, logTerm: 0, index: 0, entries: [], commit: 0, reject: false, rejectHint: 0, ...over,
});

describe('peer metrics', () => {
  it('counts bytes, snapshots, active and disconnected peers under etcd names', async () => {
    const [ra, rb] = [new Registry(), new Registry()];
    const gotB: Message[] = [];
    const a = await start(0xan, ra, []);
    const b = await start(0xbn, rb, gotB);
    a.addPeer(0xbn, [`http://127.0.0.1:${b.boundPorts[0]}`]);
    a.send([msg(0xan, 0xbn, { commit: 1 })]);
    a.send([msg(0xan, 0xbn, { type: MessageType.Snap, snapshot: { data: new Uint8Array(1000), metadata: { index: 3, term: 1, confState: { voters: [], learners: [] } } } })]);
    await waitFor('delivered', () => gotB.length === 2);
    await waitFor('sent counted', async () => (await value(ra, 'etcd_network_peer_sent_bytes_total', { To: 'b' })) > 1000);
    expect(await value(rb, 'etcd_network_peer_received_bytes_total', { From: 'a' })).toBeGreaterThan(1000);
    expect(await value(ra, 'etcd_network_snapshot_send_success', { To: 'b' })).toBe(1);
    expect(await value(ra, 'etcd_network_active_peers', { Local: 'a', Remote: 'b' })).toBe(1);

    await b.stop();
    await waitFor('disconnect counted', async () => (await value(ra, 'etcd_network_disconnected_peers_total', { Local: 'a', Remote: 'b' })) === 1);
    expect(await value(ra, 'etcd_network_active_peers', { Local: 'a', Remote: 'b' })).toBe(0);
  });
});
