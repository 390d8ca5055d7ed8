import { describe, expect, it } from 'vitest';
import { Bitmap } from '../../../../main/apiserver/registry/allocator/bitmap';
import { ipRange, portRange } from '../../../../main/apiserver/registry/allocator/ranges';
import { AllocationError, RangeAllocator, decodeRangeAllocation } from '../../../../main/apiserver/registry/allocator/rangeAllocator';
import { createServiceAllocators, firstServiceIP } from '../../../../main/apiserver/registry/allocator/serviceAllocators';
import { MemStorage } from './memStorage';

describe('bitmap encoding (big.Int.Bytes)', () => {
  it.each([
    [[], ''],
    [[0], '01'],
    [[1, 3], '0a'],
    [[8], '0100'],
    [[0, 15], '8001'],
    [[17], '020000'],
  ])('bits %j → %s', (bits, hex) => {
    const bm = new Bitmap(64);
    for (const b of bits) bm.set(b);
    expect(Buffer.from(bm.encode()).toString('hex')).toBe(hex);
    const back = Bitmap.decode(64, Buffer.from(hex, 'hex'));
    for (let i = 0; i < 64; i++) expect(back.has(i)).toBe(bits.includes(i));
    expect(back.count).toBe(bits.length);
  });

  it('prefers the upper band, then the lower', () => {
    const bm = new Bitmap(20);
    const seen: number[] = [];
    for (let i = 0; i < 20; i++) {
      const at = bm.nextFree(16, () => 0)!;
      bm.set(at);
      seen.push(at);
    }
    expect(seen).toEqual([16, 17, 18, 19, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
    expect(bm.nextFree(16, () => 0)).toBeUndefined();
  });
});

describe('ranges', () => {
  it('10.96.0.0/12: skips network and broadcast, 256 reserved for static picks', () => {
    const r = ipRange('10.96.0.0/12');
    expect(r.spec).toBe('10.96.0.0/12');
    expect(r.size).toBe(2 ** 20 - 2);
    expect(r.offset).toBe(256);
    expect(r.valueAt(0)).toBe('10.96.0.1');
    expect(r.offsetOf('10.96.0.10')).toBe(9);
    expect(r.offsetOf('10.96.0.0')).toBeUndefined();
    expect(r.offsetOf('10.111.255.255')).toBeUndefined();
    expect(r.offsetOf('10.111.255.254')).toBe(r.size - 1);
    expect(firstServiceIP()).toBe('10.96.0.1');
  });
  it('node ports 30000-32767', () => {
    const r = portRange('30000-32767');
    expect(r.size).toBe(2768);
    expect(r.offset).toBe(86);
    expect(r.offsetOf(29999)).toBeUndefined();
    expect(r.valueAt(2767)).toBe(32767);
  });
});

describe('persisted range allocator', () => {
  it('allocate, duplicate, release, persisted RangeAllocation', async () => {
    const storage = new MemStorage();
    const a = createServiceAllocators({ storage });
    await a.clusterIPs.allocate('10.96.0.1');
    await a.clusterIPs.allocate('10.96.0.10');
    await expect(a.clusterIPs.allocate('10.96.0.10')).rejects.toThrow('provided IP is already allocated');
    await expect(a.clusterIPs.allocate('192.168.0.1')).rejects.toThrow(
      'the provided IP (192.168.0.1) is not in the valid range. The range of valid IPs is 10.96.0.0/12',
    );
    const stored = await storage.get('/registry/ranges/serviceips');
    expect(stored.kind).toBe('RangeAllocation');
    expect(stored.range).toBe('10.96.0.0/12');
    // bits 0 and 9 → 0x0201
    expect(Buffer.from(stored.data as string, 'base64').toString('hex')).toBe('0201');
    await a.clusterIPs.release('10.96.0.10');
    expect(await a.clusterIPs.has('10.96.0.10')).toBe(false);
    expect(await a.clusterIPs.has('10.96.0.1')).toBe(true);
    const next = await a.clusterIPs.allocateNext();
    expect(ipRange('10.96.0.0/12').offsetOf(next)).toBeGreaterThanOrEqual(256);
    await expect(a.nodePorts.allocate(30080)).resolves.toBeUndefined();
    await expect(a.nodePorts.allocate(30080)).rejects.toThrow('provided port is already allocated');
    await expect(a.nodePorts.allocate(80)).rejects.toThrow('provided port is not in the valid range. The range of valid ports is 30000-32767');
    expect(decodeRangeAllocation(await storage.get('/registry/ranges/servicenodeports'), 2768).bitmap.has(80)).toBe(true);
  });

  it('exhaustion says range is full; release makes room', async () => {
    const storage = new MemStorage();
    const r = new RangeAllocator(storage, '/registry/ranges/serviceips', ipRange('10.0.0.0/29'), 'provided IP is already allocated');
    const got = new Set<string>();
    for (let i = 0; i < 6; i++) got.add(await r.allocateNext());
    expect(got.size).toBe(6);
    const err = await r.allocateNext().catch((e) => e);
    expect(err).toBeInstanceOf(AllocationError);
    expect(err.message).toBe('range is full');
    await r.release('10.0.0.3');
    expect(await r.allocateNext()).toBe('10.0.0.3');
  });

  it('refuses a stored range that differs from the configured one', async () => {
    const storage = new MemStorage();
    await new RangeAllocator(storage, '/k', ipRange('10.0.0.0/24'), 'x').allocate('10.0.0.5');
    await expect(new RangeAllocator(storage, '/k', ipRange('10.1.0.0/24'), 'x').allocate('10.1.0.5')).rejects.toThrow('does not match the current range');
  });
});
