// etcdWire's hand-written TxnRequest encoder and TxnResponse/WatchResponse
// decoders against proto-loader, the generic codec for the same rpc.proto:
// seeded random messages both ways, unknown fields, negative int64s.
import { describe, expect, it } from 'vitest';
import { etcdMethod, kvFromWire, type KeyValue, type Op } from '../../../../main/client/etcd/etcdClient';
import { decodeTxnResponse, decodeWatchResponse, encodeTxnRequest } from '../../../../main/client/etcd/etcdWire';
import { Prng } from '../../../sim/prng';

/** The simulator's seeded generator: a failure repeats. */
function rng(seed: number): () => number {
  const p = new Prng(seed);
  return () => p.next();
}

/** int64 values around the varint and float edges (int() adds up to 4, so the largest stays below 2^63). */
const INT64S = [0n, 1n, 127n, 128n, 300n, 2n ** 31n, 2n ** 53n - 1n, 2n ** 53n + 1n, 2n ** 62n, 2n ** 63n - 5n];

function gen(r: () => number) {
  const int = (): bigint => INT64S[Math.floor(r() * INT64S.length)]! + BigInt(Math.floor(r() * 5));
  const bytes = (): Buffer => Buffer.from(Array.from({ length: Math.floor(r() * 3) === 0 ? 0 : Math.floor(r() * 40) }, () => Math.floor(r() * 256)));
  const kv = () => ({ key: bytes(), create_revision: int().toString(), mod_revision: int().toString(), version: int().toString(), value: bytes(), lease: int().toString() });
  const header = () => ({ cluster_id: int().toString(), member_id: int().toString(), revision: int().toString(), raft_term: int().toString() });
  return { int, bytes, kv, header, pick: <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)]! };
}

const big = (s: unknown) => BigInt(String(s ?? '0'));
const kvOf = (w: Record<string, unknown>): KeyValue => kvFromWire(w);
/** An unknown field (number 99, varint) appended: both decoders must skip it. */
const withUnknown = (b: Buffer) => Buffer.concat([b, Buffer.from([0x98, 0x06, 0x2a])]);

describe('TxnResponse', () => {
  const def = etcdMethod('KV', 'Txn');
  it('decodes 2,000 random responses as proto-loader does', () => {
    const r = rng(7);
    const g = gen(r);
    for (let n = 0; n < 2000; n++) {
      const responses = Array.from({ length: Math.floor(r() * 4) }, () =>
        g.pick([
          () => ({ response_range: { header: g.header(), kvs: Array.from({ length: Math.floor(r() * 3) }, g.kv), more: r() < 0.5, count: g.int().toString() } }),
          () => ({ response_put: { header: g.header() } }),
          () => ({ response_delete_range: { header: g.header(), deleted: g.int().toString() } }),
        ])(),
      );
      const msg = { header: g.header(), succeeded: r() < 0.5, responses };
      const bytes = withUnknown(def.responseSerialize(msg) as Buffer);
      const generic = def.responseDeserialize(bytes) as Record<string, unknown>;
      const want = {
        revision: big((generic.header as { revision: string }).revision),
        succeeded: generic.succeeded === true,
        responses: (generic.responses as Record<string, unknown>[]).map((o) => {
          const range = o.response_range as { kvs: Record<string, unknown>[] } | undefined;
          return range ? { kvs: range.kvs.map(kvOf) } : {};
        }),
      };
      expect(decodeTxnResponse(bytes)).toEqual(want);
    }
  });
});

describe('WatchResponse', () => {
  const def = etcdMethod('Watch', 'Watch');
  it('decodes 2,000 random responses as proto-loader does, negative watch ids included', () => {
    const r = rng(11);
    const g = gen(r);
    for (let n = 0; n < 2000; n++) {
      const events = Array.from({ length: Math.floor(r() * 4) }, () => ({ type: r() < 0.5 ? 0 : 1, kv: g.kv(), ...(r() < 0.5 ? { prev_kv: g.kv() } : {}) }));
      const msg = {
        header: g.header(),
        watch_id: g.pick(['-1', '0', '1', '12345', (-(2n ** 40n)).toString()]),
        created: r() < 0.2,
        canceled: r() < 0.1,
        compact_revision: r() < 0.2 ? g.int().toString() : '0',
        cancel_reason: r() < 0.1 ? 'etcdserver: mvcc: required revision has been compacted' : '',
        events,
      };
      const bytes = withUnknown(def.responseSerialize(msg) as Buffer);
      const generic = def.responseDeserialize(bytes) as Record<string, unknown>;
      const got = decodeWatchResponse(bytes);
      expect(got.revision).toBe(big((generic.header as { revision: string }).revision));
      expect(got.watchId).toBe(big(generic.watch_id));
      expect(got.created).toBe(generic.created === true);
      expect(got.canceled).toBe(generic.canceled === true);
      expect(got.compactRevision).toBe(big(generic.compact_revision));
      expect(got.cancelReason).toBe(generic.cancel_reason);
      expect(got.events).toEqual(
        (generic.events as Record<string, unknown>[]).map((e) => ({
          type: e.type === 1 ? 'DELETE' : 'PUT',
          kv: kvOf(e.kv as Record<string, unknown>),
          ...(e.prev_kv ? { prevKv: kvOf(e.prev_kv as Record<string, unknown>) } : {}),
        })),
      );
    }
  });

  it('refuses truncated bytes instead of reading past them', () => {
    const bytes = etcdMethod('Watch', 'Watch').responseSerialize({ header: { revision: '5' }, events: [{ type: 0, kv: { key: Buffer.from('k'), value: Buffer.from('v') } }] }) as Buffer;
    expect(() => decodeWatchResponse(bytes.subarray(0, bytes.length - 2))).toThrow(/etcd wire: truncated/);
  });
});

describe('TxnRequest', () => {
  const def = etcdMethod('KV', 'Txn');
  it('encodes 2,000 random requests that proto-loader reads back as meant', () => {
    const r = rng(13);
    const g = gen(r);
    const key = () => g.pick(['', 'a', '/registry/pods/default/web-1', 'ключ']);
    const op = (): Op =>
      g.pick<() => Op>([
        () => ({ put: { key: key(), value: g.bytes(), lease: r() < 0.5 ? undefined : g.int() } }),
        () => ({ deleteRange: { key: key(), rangeEnd: r() < 0.5 ? undefined : key() } }),
        () => ({ range: { key: key(), rangeEnd: r() < 0.5 ? undefined : key(), limit: r() < 0.5 ? undefined : Math.floor(r() * 1000), revision: r() < 0.5 ? undefined : g.int(), keysOnly: r() < 0.3, countOnly: r() < 0.3 } }),
      ])();
    for (let n = 0; n < 2000; n++) {
      const compare = Array.from({ length: Math.floor(r() * 3) }, () => (r() < 0.5 ? { key: key(), modRevision: g.int() } : { key: key(), version: g.int() }));
      const success = Array.from({ length: Math.floor(r() * 3) }, op);
      const failure = Array.from({ length: Math.floor(r() * 3) }, op);
      const back = def.requestDeserialize(encodeTxnRequest(compare, success, failure)) as Record<string, unknown>;
      expect((back.compare as Record<string, unknown>[]).map((c) => ({ result: c.result, target: c.target, key: (c.key as Buffer).toString(), union: c.target_union, rev: big(c.target_union === 'mod_revision' ? c.mod_revision : c.version) }))).toEqual(
        compare.map((c) => ({ result: 0, target: 'modRevision' in c ? 2 : 0, key: c.key, union: 'modRevision' in c ? 'mod_revision' : 'version', rev: 'modRevision' in c ? c.modRevision : c.version })),
      );
      const opBack = (o: Record<string, unknown>) => {
        if (o.request === 'request_put') {
          const p = o.request_put as Record<string, unknown>;
          return { put: { key: (p.key as Buffer).toString(), value: Buffer.from(p.value as Buffer), lease: big(p.lease) } };
        }
        if (o.request === 'request_delete_range') {
          const d = o.request_delete_range as Record<string, unknown>;
          return { deleteRange: { key: (d.key as Buffer).toString(), rangeEnd: (d.range_end as Buffer).toString() } };
        }
        const q = o.request_range as Record<string, unknown>;
        return { range: { key: (q.key as Buffer).toString(), rangeEnd: (q.range_end as Buffer).toString(), limit: Number(q.limit), revision: big(q.revision), keysOnly: q.keys_only, countOnly: q.count_only } };
      };
      const opWant = (o: Op) => {
        if ('put' in o) return { put: { key: o.put.key, value: Buffer.from(o.put.value), lease: o.put.lease ?? 0n } };
        if ('deleteRange' in o) return { deleteRange: { key: o.deleteRange.key, rangeEnd: o.deleteRange.rangeEnd === undefined ? '' : String(o.deleteRange.rangeEnd) } };
        const q = o.range;
        return { range: { key: String(q.key), rangeEnd: q.rangeEnd === undefined ? '' : String(q.rangeEnd), limit: q.limit ?? 0, revision: q.revision ?? 0n, keysOnly: q.keysOnly ?? false, countOnly: q.countOnly ?? false } };
      };
      expect((back.success as Record<string, unknown>[]).map(opBack)).toEqual(success.map(opWant));
      expect((back.failure as Record<string, unknown>[]).map(opBack)).toEqual(failure.map(opWant));
    }
  });

  it('a create reads back the same as proto-loader\'s encoding of it (which also writes zero values)', () => {
    const key = '/registry/pods/default/a';
    const generic = def.requestSerialize({
      compare: [{ result: 0, target: 2, key: Buffer.from(key), mod_revision: '0' }],
      success: [{ request_put: { key: Buffer.from(key), value: Buffer.from('k8s\u0000pod'), lease: '0' } }],
      failure: [],
    }) as Buffer;
    const mine = encodeTxnRequest([{ key, modRevision: 0n }], [{ put: { key, value: Buffer.from('k8s\u0000pod') } }], []);
    expect(def.requestDeserialize(mine)).toEqual(def.requestDeserialize(generic));
    // The compare's target_union member is on the wire even at 0 (a oneof member once set is always written).
    expect(mine.includes(Buffer.from([0x30, 0x00]))).toBe(true);
  });
});
