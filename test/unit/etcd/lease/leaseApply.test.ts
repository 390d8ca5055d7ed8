// Leases through the state machine: the Raft entries a member applies, the
// MVCC store's lease hooks, and the snapshot that carries the lessor.

import { describe, expect, it } from 'vitest';
import { EventType, type MvccEvent, type PutRequest } from '../../../../main/etcd/mvcc/index';
import { decodeInternalRequest, encodeInternalRequest, type InternalRequest } from '../../../../main/etcd/server/internalRequest';
import { decodeSnapshotData, encodeSnapshotData } from '../../../../main/etcd/server/snapshotData';
import { StateMachine } from '../../../../main/etcd/server/stateMachine';

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);
const put = (key: string, lease: bigint): PutRequest => ({
  key: enc(key),
  value: enc(`v-${key}`),
  lease,
  prevKv: false,
  ignoreValue: false,
  ignoreLease: false,
});

/** Applies requests as consecutive Raft entries; returns each outcome. */
function applyAll(sm: StateMachine, reqs: Omit<InternalRequest, 'id'>[]) {
  return reqs.map((r, i) => sm.applyNormal(sm.consistentIndex + 1, encodeInternalRequest({ id: BigInt(i + 1), ...r } as InternalRequest)));
}

describe('lease requests in the Raft log', () => {
  const cases: { name: string; req: InternalRequest }[] = [
    { name: 'grant with a 63-bit id', req: { id: 5n, leaseGrant: { id: 0x7fff_ffff_ffff_fff0n, ttl: 9_000_000_000 } } },
    { name: 'grant with a negative TTL', req: { id: 6n, leaseGrant: { id: 1n, ttl: -3 } } },
    { name: 'revoke', req: { id: 7n, leaseRevoke: { id: 0x694d_7a1b_2c3d_4e5fn } } },
  ];
  for (const c of cases) it(c.name, () => expect(decodeInternalRequest(encodeInternalRequest(c.req))).toEqual(c.req));
});

describe('StateMachine with leases', () => {
  it('grants (raising the TTL), refuses duplicates and puts on unknown leases', () => {
    const sm = new StateMachine(2);
    const [g1, g2, p1, p2] = applyAll(sm, [
      { leaseGrant: { id: 10n, ttl: 1 } },
      { leaseGrant: { id: 10n, ttl: 60 } },
      { put: put('k', 10n) },
      { put: put('k2', 11n) },
    ]);
    expect(g1).toEqual({ id: 1n, value: { id: 10n, ttl: 2 } });
    expect(g2 && 'error' in g2 && g2.error.message).toBe('etcdserver: lease already exists');
    expect(p1 && 'value' in p1).toBe(true);
    expect(p2 && 'error' in p2 && p2.error.message).toBe('etcdserver: requested lease not found');
    expect(sm.lessor.lookup(10n)!.sortedKeys().map(dec)).toEqual(['k']);
  });

  it('revoke deletes the attached keys in one revision, one DELETE event per key in key order', () => {
    const sm = new StateMachine(2);
    applyAll(sm, [
      { leaseGrant: { id: 1n, ttl: 10 } },
      { leaseGrant: { id: 2n, ttl: 10 } },
      { put: put('b', 1n) },
      { put: put('a', 1n) },
      { put: put('c', 1n) },
      { put: put('other', 2n) },
      { put: put('c', 2n) }, // moves c to lease 2
    ]);
    const before = sm.store.currentRevision;
    const seen: { revision: number; events: MvccEvent[] }[] = [];
    sm.store.onEvents = (revision, events) => seen.push({ revision, events });
    const [out] = applyAll(sm, [{ leaseRevoke: { id: 1n } }]);
    expect(out && 'value' in out).toBe(true);
    expect(sm.store.currentRevision).toBe(before + 1);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.events.map((e) => [e.type, dec(e.kv.key)])).toEqual([
      [EventType.Delete, 'a'],
      [EventType.Delete, 'b'],
    ]);
    expect(sm.lessor.lookup(1n)).toBeUndefined();
    const left = sm.store.range({ ...rangeAll() });
    expect(left.kvs.map((kv) => dec(kv.key))).toEqual(['c', 'other']);
    const [again] = applyAll(sm, [{ leaseRevoke: { id: 1n } }]);
    expect(again && 'error' in again && again.error.message).toBe('etcdserver: requested lease not found');
  });

  it('a revoke of a lease without keys changes no revision', () => {
    const sm = new StateMachine(2);
    applyAll(sm, [{ leaseGrant: { id: 1n, ttl: 10 } }]);
    const before = sm.store.currentRevision;
    applyAll(sm, [{ leaseRevoke: { id: 1n } }]);
    expect(sm.store.currentRevision).toBe(before);
    expect(sm.lessor.size).toBe(0);
  });

  it('round-trips leases and their keys through the snapshot', () => {
    const sm = new StateMachine(2);
    applyAll(sm, [
      { leaseGrant: { id: 1n, ttl: 10 } },
      { leaseGrant: { id: 0x7123_4567_89ab_cdefn, ttl: 300 } },
      { put: put('x', 1n) },
      { put: put('y', 0x7123_4567_89ab_cdefn) },
      { put: put('z', 0n) },
    ]);
    const back = new StateMachine(2);
    back.restore(sm.snapshotData());
    expect(back.lessor.toRecords()).toEqual(sm.lessor.toRecords());
    expect(back.lessor.lookup(1n)!.sortedKeys().map(dec)).toEqual(['x']);
    expect(back.lessor.lookup(0x7123_4567_89ab_cdefn)!.sortedKeys().map(dec)).toEqual(['y']);
    // the restored store checks leases against the restored lessor
    const [bad, revoke] = applyAll(back, [{ put: put('w', 99n) }, { leaseRevoke: { id: 1n } }]);
    expect(bad && 'error' in bad && bad.error.message).toBe('etcdserver: requested lease not found');
    expect(revoke && 'value' in revoke).toBe(true);
    expect(back.store.range(rangeAll()).kvs.map((kv) => dec(kv.key))).toEqual(['y', 'z']);
  });

  it('reads a snapshot written before leases existed (no leases field)', () => {
    const sm = new StateMachine(2);
    applyAll(sm, [{ put: put('k', 0n) }]);
    const s = decodeSnapshotData(sm.snapshotData());
    const old = encodeSnapshotData({ consistentIndex: s.consistentIndex, membership: s.membership, mvcc: s.mvcc });
    expect(decodeSnapshotData(old).leases).toBeUndefined();
    const back = new StateMachine(2);
    back.restore(old);
    expect(back.lessor.size).toBe(0);
    expect(back.store.range(rangeAll()).kvs.map((kv) => dec(kv.key))).toEqual(['k']);
  });

  it('promotes through the term-entry hook only when told the member leads', () => {
    const sm = new StateMachine(2);
    applyAll(sm, [{ leaseGrant: { id: 1n, ttl: 10 } }]);
    let leads = false;
    sm.onTermEntry = () => {
      if (leads) sm.lessor.promote(1000, Date.now());
    };
    sm.applyNormal(sm.consistentIndex + 1, new Uint8Array(0));
    expect(sm.lessor.isPrimary).toBe(false);
    leads = true;
    sm.applyNormal(sm.consistentIndex + 1, new Uint8Array(0));
    expect(sm.lessor.isPrimary).toBe(true);
    expect(sm.lessor.lookup(1n)!.remainingMs(Date.now())).toBeGreaterThan(10_500);
  });
});

function rangeAll() {
  return {
    key: new Uint8Array([0]),
    rangeEnd: new Uint8Array([0]),
    limit: 0,
    revision: 0,
    sortOrder: 0,
    sortTarget: 0,
    serializable: true,
    keysOnly: false,
    countOnly: false,
    minModRevision: 0,
    maxModRevision: 0,
    minCreateRevision: 0,
    maxCreateRevision: 0,
  };
}
