import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { MessageType, type MemberId, type Message } from '../../../../../main/etcd/raft/types';
import { PeerTransport } from '../../../../../main/etcd/server/transport';
import { eventually } from '../../../../support/waitFor';

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
    await eventually('delivered', () => gotB.length === 2, { timeoutMs: 8000, intervalMs: 10 });
    await eventually('sent counted', async () => (await value(ra, 'etcd_network_peer_sent_bytes_total', { To: 'b' })) > 1000, { timeoutMs: 8000, intervalMs: 10 });
    expect(await value(rb, 'etcd_network_peer_received_bytes_total', { From: 'a' })).toBeGreaterThan(1000);
    expect(await value(ra, 'etcd_network_snapshot_send_success', { To: 'b' })).toBe(1);
    expect(await value(ra, 'etcd_network_active_peers', { Local: 'a', Remote: 'b' })).toBe(1);

    await b.stop();
    await eventually('disconnect counted', async () => (await value(ra, 'etcd_network_disconnected_peers_total', { Local: 'a', Remote: 'b' })) === 1, { timeoutMs: 8000, intervalMs: 10 });
    expect(await value(ra, 'etcd_network_active_peers', { Local: 'a', Remote: 'b' })).toBe(0);
  });
});
