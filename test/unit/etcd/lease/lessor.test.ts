import { describe, expect, it } from 'vitest';
import { EXPIRED_RETRY_MS, Lessor, MAX_LEASE_TTL, minLeaseTtl } from '../../../../main/etcd/lease/index';

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

/** A lessor on a fake clock; primary unless told otherwise. */
function primaryLessor(now: number, minTtl = 2): Lessor {
  const l = new Lessor(minTtl);
  l.promote(0, now);
  return l;
}

describe('minLeaseTtl (etcd: ceil(((3 × election ticks) / 2) × heartbeat))', () => {
  const cases = [
    { name: 'etcd defaults', election: 1000, heartbeat: 100, want: 2 },
    { name: 'integer division of the ticks', election: 500, heartbeat: 100, want: 1 },
    { name: 'long election timeout', election: 5000, heartbeat: 250, want: 8 },
  ];
  for (const c of cases) it(c.name, () => expect(minLeaseTtl(c.election, c.heartbeat)).toBe(c.want));
});

describe('Lessor.grant', () => {
  const cases: { name: string; id: bigint; ttl: number; want: number | string }[] = [
    { name: 'keeps a TTL above the minimum', id: 1n, ttl: 10, want: 10 },
    { name: 'raises a small TTL to the minimum', id: 2n, ttl: 1, want: 2 },
    { name: 'raises a negative TTL to the minimum', id: 3n, ttl: -5, want: 2 },
    { name: 'accepts the largest TTL', id: 4n, ttl: MAX_LEASE_TTL, want: MAX_LEASE_TTL },
    { name: 'refuses a larger TTL', id: 5n, ttl: MAX_LEASE_TTL + 1, want: 'etcdserver: too large lease TTL' },
    { name: 'refuses the zero id', id: 0n, ttl: 10, want: 'etcdserver: requested lease not found' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const l = primaryLessor(0);
      if (typeof c.want === 'string') expect(() => l.grant(c.id, c.ttl, 0)).toThrow(c.want);
      else expect(l.grant(c.id, c.ttl, 0).ttl).toBe(c.want);
    });
  }

  it('refuses an id that exists', () => {
    const l = primaryLessor(0);
    l.grant(7n, 10, 0);
    expect(() => l.grant(7n, 20, 0)).toThrow('etcdserver: lease already exists');
    expect(l.lookup(7n)!.ttl).toBe(10);
  });

  it('a follower (not primary) keeps leases forever', () => {
    const l = new Lessor(2);
    const lease = l.grant(1n, 5, 1000);
    expect(lease.expiry).toBe(Infinity);
    expect(l.takeExpired(1_000_000_000, 10)).toEqual([]);
    expect(l.renew(1n, 0)).toBe('not-primary');
  });
});

describe('Lessor expiry on a fake clock', () => {
  it('expires leases at their TTL, soonest first, each offered once per retry interval', () => {
    const l = primaryLessor(0);
    l.grant(30n, 30, 0);
    l.grant(10n, 10, 0);
    l.grant(20n, 20, 0);
    expect(l.takeExpired(9_999, 10)).toEqual([]);
    expect(l.takeExpired(10_000, 10)).toEqual([10n]);
    expect(l.takeExpired(10_000 + EXPIRED_RETRY_MS - 1, 10)).toEqual([]); // 10 is being revoked: not offered again yet
    expect(l.takeExpired(10_000 + EXPIRED_RETRY_MS, 10)).toEqual([10n]); // its revocation did not happen: again
    l.revoke(10n, () => {});
    expect(l.takeExpired(20_000, 10)).toEqual([20n]);
    expect(l.takeExpired(40_000, 1)).toEqual([20n]); // limit 1, soonest expiry first
    expect(l.takeExpired(40_000, 1)).toEqual([30n]);
  });

  it('renew restarts the clock and answers the TTL; an expired lease is not renewed', () => {
    const l = primaryLessor(0);
    l.grant(1n, 10, 0);
    expect(l.renew(1n, 8_000)).toEqual({ ttl: 10 });
    expect(l.lookup(1n)!.remainingMs(8_000)).toBe(10_000);
    expect(l.takeExpired(17_999, 10)).toEqual([]);
    expect(l.renew(1n, 18_000)).toBe('expired');
    expect(() => l.renew(2n, 0)).toThrow('etcdserver: requested lease not found');
  });

  it('promote refreshes every lease to TTL + extend from now; demote stops expiry', () => {
    const follower = new Lessor(2);
    follower.grant(1n, 10, 0);
    follower.grant(2n, 5, 0);
    // becomes leader at t=100 s with an election timeout of 1 s
    follower.promote(1000, 100_000);
    expect(follower.lookup(1n)!.expiry).toBe(111_000);
    expect(follower.lookup(2n)!.expiry).toBe(106_000);
    expect(follower.takeExpired(105_999, 10)).toEqual([]);
    expect(follower.takeExpired(106_000, 10)).toEqual([2n]);
    follower.demote();
    expect(follower.isPrimary).toBe(false);
    expect(follower.takeExpired(1e12, 10)).toEqual([]);
    expect(follower.lookup(1n)!.expiry).toBe(Infinity);
  });

  it('promote spreads a pile-up of 1000+ leases so no second sees more than 750 expiries', () => {
    const l = new Lessor(2);
    for (let i = 1; i <= 2000; i++) l.grant(BigInt(i), 10, 0);
    l.promote(0, 0);
    const perSecond = new Map<number, number>();
    for (const lease of l.list()) {
      const s = Math.floor(lease.expiry / 1000);
      perSecond.set(s, (perSecond.get(s) ?? 0) + 1);
    }
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(751);
    expect(Math.min(...l.list().map((x) => x.expiry))).toBe(10_000);
  });
});

describe('Lessor keys and revoke', () => {
  it('attach/detach through the store hooks; revoke hands the keys sorted, then forgets the lease', () => {
    const l = primaryLessor(0);
    l.grant(1n, 10, 0);
    expect(l.hooks.exists(1n)).toBe(true);
    expect(l.hooks.exists(2n)).toBe(false);
    for (const k of ['b', 'a', 'c', '\u00ff', 'ab']) l.hooks.attach(1n, enc(k));
    l.hooks.detach(1n, enc('c'));
    let deleted: string[] = [];
    l.revoke(1n, (keys) => (deleted = keys.map(dec)));
    expect(deleted).toEqual(['a', 'ab', 'b', '\u00ff']);
    expect(l.lookup(1n)).toBeUndefined();
    expect(() => l.revoke(1n, () => {})).toThrow('etcdserver: requested lease not found');
  });

  it('lists leases by expiry, then id', () => {
    const l = primaryLessor(0);
    l.grant(9n, 20, 0);
    l.grant(3n, 10, 0);
    l.grant(5n, 10, 0);
    expect(l.list().map((x) => x.id)).toEqual([3n, 5n, 9n]);
  });

  it('restores from records and re-attaches the keys the store holds, skipping unknown leases', () => {
    const src = primaryLessor(0);
    src.grant(2n, 30, 0);
    src.grant(1n, 10, 0);
    const keys: [bigint, string][] = [
      [1n, 'x'],
      [2n, 'y'],
      [3n, 'orphan'],
    ];
    const back = Lessor.restore(2, src.toRecords(), (visit) => keys.forEach(([id, k]) => visit(id, enc(k))));
    expect(back.toRecords()).toEqual([
      { id: 1n, ttl: 10 },
      { id: 2n, ttl: 30 },
    ]);
    expect(back.isPrimary).toBe(false);
    expect(back.lookup(1n)!.sortedKeys().map(dec)).toEqual(['x']);
    expect(back.lookup(3n)).toBeUndefined();
  });
});
