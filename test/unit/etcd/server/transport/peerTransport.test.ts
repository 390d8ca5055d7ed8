import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EntryType, MessageType, type MemberId, type Message } from '../../../../../main/etcd/raft/types';
import { PeerTransport, STREAM_QUEUE_LIMIT } from '../../../../../main/etcd/server/transport';
import { MD_CLUSTER_ID, MD_FROM, MD_TO, STREAM_PATH, maxStreamMessageBytes } from '../../../../../main/etcd/server/transport/peerProtocol';
import { Client, Metadata, credentials, type ServiceError } from '@grpc/grpc-js';
import { eventually } from '../../../../support/waitFor';

const CLUSTER = 0xcdf818194e3a8c32n;
const ID1 = 0x8e9e05c52164694dn;
const ID2 = 0x91bc3c398fb3c146n;
const ID3 = 0xfd422379fda50e48n;

interface Member {
  id: MemberId;
  t: PeerTransport;
  got: Message[];
  unreachable: MemberId[];
  snapStatus: { id: MemberId; ok: boolean }[];
  logs: string[];
  url: string;
}

const live: PeerTransport[] = [];
const rawServers: { server: Server; sockets: Set<Socket> }[] = [];

afterEach(async () => {
  await Promise.all(live.splice(0).map((t) => t.stop()));
  for (const r of rawServers.splice(0)) {
    for (const s of r.sockets) s.destroy();
    await new Promise((res) => r.server.close(res));
  }
});

async function member(id: MemberId, opts: { port?: number; clusterId?: bigint; maxAppendBytes?: number } = {}): Promise<Member> {
  const m = { id, got: [], unreachable: [], snapStatus: [], logs: [] } as unknown as Member;
  m.t = new PeerTransport({
    localId: id,
    clusterId: opts.clusterId ?? CLUSTER,
    listenUrls: [`http://127.0.0.1:${opts.port ?? 0}`],
    onMessage: (msg) => m.got.push(msg),
    onUnreachable: (pid) => m.unreachable.push(pid),
    onSnapshotStatus: (pid, ok) => m.snapStatus.push({ id: pid, ok }),
    log: (line) => m.logs.push(line),
    ...(opts.maxAppendBytes !== undefined && { maxAppendBytes: opts.maxAppendBytes }),
  });
  live.push(m.t);
  await m.t.start();
  m.url = `http://127.0.0.1:${m.t.boundPorts[0]}`;
  return m;
}

function connect(...ms: Member[]): void {
  for (const a of ms) for (const b of ms) if (a !== b) a.t.addPeer(b.id, [b.url]);
}

function msg(from: MemberId, to: MemberId, over: Partial<Message> = {}): Message {
  return {
    type: MessageType.Heartbeat, to, from, term: 1, logTerm: 0, index: 0,
    entries: [], commit: 0, reject: false, rejectHint: 0, ...over,
  };
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** Opens Peer.Stream on `to` as member `from` would, writes `payload` as one message, and resolves with how the call ended. */
function rawStreamCall(to: Member, from: MemberId, payload: Buffer): Promise<ServiceError | null> {
  const client = new Client(to.url.replace('http://', ''), credentials.createInsecure(), { 'grpc.max_send_message_length': -1 });
  const md = new Metadata();
  md.set(MD_CLUSTER_ID, CLUSTER.toString(16));
  md.set(MD_FROM, from.toString(16));
  md.set(MD_TO, to.id.toString(16));
  return new Promise((resolve) => {
    const call = client.makeClientStreamRequest(STREAM_PATH, (b: Buffer) => b, (b: Buffer) => b, md, {}, (err) => {
      client.close();
      resolve(err);
    });
    call.write(payload);
  });
}

describe('PeerTransport', () => {
  it('ends a Stream call that sends garbage or a batch larger than any member sends, and keeps serving', async () => {
    const maxAppendBytes = 64 * 1024;
    const [a, b] = [await member(ID1), await member(ID2, { maxAppendBytes })];
    const garbage = await rawStreamCall(b, ID1, Buffer.alloc(100, 0xff));
    expect({ code: garbage?.code, details: garbage?.details }).toEqual({ code: 3, details: 'bad message batch' });
    const limit = maxStreamMessageBytes(maxAppendBytes);
    const huge = await rawStreamCall(b, ID1, Buffer.alloc(limit + 1));
    expect({ code: huge?.code, details: huge?.details }).toEqual({ code: 8, details: `message batch larger than ${limit} bytes` });
    expect(b.logs.some((l) => l.includes(`refused a ${limit + 1}-byte raft message batch`))).toBe(true);
    connect(a, b);
    a.t.send([msg(ID1, ID2, { commit: 7 })]);
    await eventually('delivery after the bad calls', () => b.got.some((m) => m.commit === 7), { timeoutMs: 8000, intervalMs: 10 });
  });

  it('delivers messages between three members in order per sender', async () => {
    const [a, b, c] = [await member(ID1), await member(ID2), await member(ID3)];
    connect(a, b, c);
    const N = 300;
    for (let i = 1; i <= N; i++) {
      // Several send() calls, each mixing destinations, as a Ready would.
      a.t.send([msg(ID1, ID2, { commit: i }), msg(ID1, ID3, { commit: i })]);
      if (i % 50 === 0) await new Promise((r) => setImmediate(r));
    }
    c.t.send([msg(ID3, ID2, { type: MessageType.VoteResp, term: 9 })]);
    await eventually('all heartbeats', () => b.got.length === N + 1 && c.got.length === N, { timeoutMs: 8000, intervalMs: 10 });
    const fromA = b.got.filter((m) => m.from === ID1).map((m) => m.commit);
    expect(fromA).toEqual(Array.from({ length: N }, (_, i) => i + 1));
    expect(c.got.map((m) => m.commit)).toEqual(Array.from({ length: N }, (_, i) => i + 1));
    expect(b.got.find((m) => m.from === ID3)).toMatchObject({ type: MessageType.VoteResp, term: 9, to: ID2 });
    expect(a.unreachable).toEqual([]);
    expect(a.t.activeSince(ID2)).toBeGreaterThan(0);
    expect(b.t.activeSince(ID1)).toBeGreaterThan(0);
    expect(a.t.activeSince(0x1234n)).toBe(0);
  });

  it('keeps appends in order and lets a heartbeat overtake a large append batch', async () => {
    const [a, b] = [await member(ID1), await member(ID2)];
    connect(a, b);
    await eventually('streams up', () => a.t.isConnected(ID2), { timeoutMs: 8000, intervalMs: 10 });
    const MiB = new Uint8Array(1024 * 1024).fill(7);
    const apps = Array.from({ length: 24 }, (_, i) =>
      msg(ID1, ID2, { type: MessageType.App, index: i, entries: [{ term: 1, index: i + 1, type: EntryType.Normal, data: MiB }] }),
    );
    a.t.send([...apps, msg(ID1, ID2, { commit: 99 })]);
    await eventually('appends', () => b.got.length === 25, { timeoutMs: 20000, intervalMs: 10 });
    const order = b.got.map((m) => (m.type === MessageType.App ? m.index : 'hb'));
    expect(order.filter((x) => x !== 'hb')).toEqual(apps.map((m) => m.index));
    expect(order.indexOf('hb')).toBeLessThan(order.length - 1);
    expect(b.got.at(-1)!.entries[0]!.data.byteLength).toBe(MiB.byteLength);
  });

  it('drops messages to unknown peers and reports a peer that is down, then reconnects when it comes up', async () => {
    const a = await member(ID1);
    const port = await freePort();
    a.t.send([msg(ID1, ID3)]); // unknown: dropped, no report
    a.t.addPeer(ID2, [`http://127.0.0.1:${port}`]);
    a.t.send([msg(ID1, ID2, { commit: 1 })]);
    await eventually('unreachable report', () => a.unreachable.includes(ID2), { timeoutMs: 8000, intervalMs: 10 });
    expect(a.unreachable.every((id) => id === ID2)).toBe(true);
    expect(a.logs.some((l) => l.includes('unknown remote peer target'))).toBe(true);
    expect(a.t.isConnected(ID2)).toBe(false);

    // Let the backoff grow a little, then bring the peer up on the same port.
    await new Promise((r) => setTimeout(r, 400));
    const b = await member(ID2, { port });
    b.t.addPeer(ID1, [a.url]);
    await eventually('reconnect', () => a.t.isConnected(ID2), { timeoutMs: 10000, intervalMs: 10 });
    a.t.send([msg(ID1, ID2, { commit: 2 }), msg(ID1, ID2, { commit: 3 })]);
    await eventually('later messages', () => b.got.some((m) => m.commit === 3), { timeoutMs: 8000, intervalMs: 10 });
    expect(b.got.map((m) => m.commit).filter((c) => c >= 2)).toEqual([2, 3]);
  });

  it('retries at once when a peer in long backoff talks to us', async () => {
    const a = await member(ID1);
    const port = await freePort();
    a.t.addPeer(ID2, [`http://127.0.0.1:${port}`]);
    // Attempts at 0, 0.1, 0.3, 0.7 and 1.5 s: at 1.7 s the next is 1.4 s away.
    await new Promise((r) => setTimeout(r, 1700));
    expect(a.unreachable.length).toBeGreaterThanOrEqual(4);
    const b = await member(ID2, { port });
    b.t.addPeer(ID1, [a.url]);
    b.t.send([msg(ID2, ID1, { type: MessageType.HeartbeatResp })]);
    await eventually('heard from b', () => a.got.length === 1, { timeoutMs: 8000, intervalMs: 10 });
    const heardAt = Date.now();
    await eventually('reconnect', () => a.t.isConnected(ID2), { timeoutMs: 8000, intervalMs: 10 });
    expect(Date.now() - heardAt).toBeLessThan(500);
  });

  it('reports unreachable and reconnects after the peer restarts', async () => {
    const [a, b] = [await member(ID1), await member(ID2)];
    connect(a, b);
    await eventually('up', () => a.t.isConnected(ID2), { timeoutMs: 8000, intervalMs: 10 });
    const port = b.t.boundPorts[0]!;
    await b.t.stop();
    await eventually('down noticed', () => !a.t.isConnected(ID2) && a.unreachable.includes(ID2), { timeoutMs: 8000, intervalMs: 10 });
    expect(a.logs.some((l) => l.includes('became inactive'))).toBe(true);
    const b2 = await member(ID2, { port });
    await eventually('back up', () => a.t.isConnected(ID2), { timeoutMs: 10000, intervalMs: 10 });
    a.t.send([msg(ID1, ID2, { commit: 5 })]);
    await eventually('delivered', () => b2.got.some((m) => m.commit === 5), { timeoutMs: 8000, intervalMs: 10 });
  });

  it('bounds the queue of a peer that accepts connections but never answers', async () => {
    const sockets = new Set<Socket>();
    const server = createServer((s) => {
      sockets.add(s);
      s.on('error', () => {});
    });
    rawServers.push({ server, sockets });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const a = await member(ID1);
    a.t.addPeer(ID2, [`http://127.0.0.1:${(server.address() as { port: number }).port}`]);
    a.t.send([msg(ID1, ID2)]); // in flight (never completes)
    const burst = Array.from({ length: STREAM_QUEUE_LIMIT + 1000 }, (_, i) => msg(ID1, ID2, { commit: i }));
    a.t.send(burst);
    expect(a.t.queuedFor(ID2)).toBe(STREAM_QUEUE_LIMIT);
    // The drops are reported once, after send() returns.
    expect(a.unreachable).toEqual([]);
    await Promise.resolve();
    expect(a.unreachable).toEqual([ID2]);
    a.t.send(burst);
    expect(a.t.queuedFor(ID2)).toBe(STREAM_QUEUE_LIMIT);
    await Promise.resolve();
    expect(a.unreachable).toEqual([ID2, ID2]);
  });

  it('never throws on bad peer URLs', async () => {
    const a = await member(ID1);
    a.t.addPeer(ID2, ['not a url']);
    a.t.addPeer(ID3, ['http://127.0.0.1:1']);
    a.t.updatePeer(ID3, ['ftp://127.0.0.1:2']);
    expect(a.logs.filter((l) => l.startsWith('cannot'))).toHaveLength(2);
    expect(() => a.t.send([msg(ID1, ID2), msg(ID1, ID3)])).not.toThrow();
  });

  it('rejects a peer from another cluster', async () => {
    const a = await member(ID1);
    const b = await member(ID2, { clusterId: 0x1111n });
    connect(a, b);
    a.t.send([msg(ID1, ID2, { commit: 1 })]);
    await eventually('mismatch logged', () => b.logs.some((l) => l.includes('request cluster ID mismatch')), { timeoutMs: 8000, intervalMs: 10 });
    await eventually('sender told', () => a.logs.some((l) => l.includes('ignored by remote peer') && l.includes('cluster ID mismatch')), { timeoutMs: 8000, intervalMs: 10 });
    await eventually('unreachable', () => a.unreachable.includes(ID2), { timeoutMs: 8000, intervalMs: 10 });
    expect(a.t.isConnected(ID2)).toBe(false);
    expect(b.got).toEqual([]);
    expect(a.got).toEqual([]);
  });

  it('delivers a 5 MB snapshot beside small messages and reports its status', async () => {
    const [a, b] = [await member(ID1), await member(ID2)];
    connect(a, b);
    const data = new Uint8Array(5 * 1024 * 1024);
    for (let i = 0; i < data.length; i += 4096) data[i] = i & 0xff;
    const snap = msg(ID1, ID2, {
      type: MessageType.Snap, term: 3,
      snapshot: { data, metadata: { index: 5000, term: 3, confState: { voters: [ID1, ID2], learners: [] } } },
    });
    a.t.send([snap, msg(ID1, ID2, { commit: 1 }), msg(ID1, ID2, { commit: 2 })]);
    await eventually('snapshot status', () => a.snapStatus.length === 1, { timeoutMs: 20000, intervalMs: 10 });
    expect(a.snapStatus).toEqual([{ id: ID2, ok: true }]);
    await eventually('heartbeats', () => b.got.filter((m) => m.type === MessageType.Heartbeat).length === 2, { timeoutMs: 8000, intervalMs: 10 });
    const got = b.got.find((m) => m.type === MessageType.Snap)!;
    expect(got.snapshot!.metadata).toEqual(snap.snapshot!.metadata);
    expect(Buffer.compare(Buffer.from(got.snapshot!.data), Buffer.from(data))).toBe(0);
  });

  it('reports a failed snapshot to a peer that is down', async () => {
    const a = await member(ID1);
    a.t.addPeer(ID2, [`http://127.0.0.1:${await freePort()}`]);
    a.t.send([msg(ID1, ID2, { type: MessageType.Snap, snapshot: { data: new Uint8Array(10), metadata: { index: 1, term: 1, confState: { voters: [], learners: [] } } } })]);
    await eventually('snapshot failure', () => a.snapStatus.length === 1, { timeoutMs: 8000, intervalMs: 10 });
    expect(a.snapStatus).toEqual([{ id: ID2, ok: false }]);
    expect(a.unreachable).toContain(ID2);
  });

  it('tries a peer\'s next URL when one is dead, and follows updatePeer', async () => {
    const [a, b] = [await member(ID1), await member(ID2)];
    a.t.addPeer(ID2, [`http://127.0.0.1:${await freePort()}`, b.url]);
    await eventually('connected via the second URL', () => a.t.isConnected(ID2), { timeoutMs: 10000, intervalMs: 10 });
    a.t.send([msg(ID1, ID2, { commit: 1 })]);
    await eventually('delivered', () => b.got.length === 1, { timeoutMs: 8000, intervalMs: 10 });

    const c = await member(ID2); // same id, new address: the member moved
    a.t.updatePeer(ID2, [c.url]);
    await eventually('connected to the new URL', () => a.t.isConnected(ID2), { timeoutMs: 10000, intervalMs: 10 });
    a.t.send([msg(ID1, ID2, { commit: 2 })]);
    await eventually('delivered to new address', () => c.got.length === 1, { timeoutMs: 8000, intervalMs: 10 });
    expect(b.got.map((m) => m.commit)).toEqual([1]);

    a.t.removePeer(ID2);
    const before = a.unreachable.length;
    a.t.send([msg(ID1, ID2, { commit: 3 })]);
    expect(a.t.activeSince(ID2)).toBe(0);
    expect(a.unreachable.length).toBe(before);
  });

  it('stop() releases every socket, server and timer it created', async () => {
    const kinds = ['TCPSocketWrap', 'TCPServerWrap', 'Timeout'];
    const count = () => process.getActiveResourcesInfo().filter((k) => kinds.includes(k)).length;
    const baseline = count();
    const [a, b] = [await member(ID1), await member(ID2)];
    a.t.addPeer(ID2, [b.url]);
    b.t.addPeer(ID1, [a.url]);
    a.t.addPeer(ID3, [`http://127.0.0.1:${await freePort()}`]); // down: in backoff
    await eventually('up', () => a.t.isConnected(ID2) && b.t.isConnected(ID1), { timeoutMs: 8000, intervalMs: 10 });
    a.t.send([msg(ID1, ID2)]);
    expect(count()).toBeGreaterThan(baseline);
    await Promise.all(live.splice(0).map((t) => t.stop()));
    await eventually('handles released', () => count() <= baseline, { timeoutMs: 5000, intervalMs: 10 });
    a.t.send([msg(ID1, ID2)]); // after stop: ignored, no new handles
    expect(count()).toBeLessThanOrEqual(baseline);
  });
});
