// The allocation bitmap kube persists in a RangeAllocation: a Go big.Int
// whose bit i says "offset i is taken", stored as big.Int.Bytes() —
// big-endian with leading zero bytes dropped (an empty map is empty data).
// pkg/registry/core/service/allocator/bitmap.go.

export class Bitmap {
  /** Little-endian bit order in memory: bit i lives in bytes[i >> 3], mask 1 << (i & 7). */
  private bytes: Uint8Array;
  private used = 0;

  constructor(readonly size: number) {
    this.bytes = new Uint8Array(Math.ceil(size / 8));
  }

  has(i: number): boolean {
    return (this.bytes[i >> 3] & (1 << (i & 7))) !== 0;
  }

  set(i: number): void {
    if (!this.has(i)) this.used++;
    this.bytes[i >> 3] |= 1 << (i & 7);
  }

  clear(i: number): void {
    if (this.has(i)) this.used--;
    this.bytes[i >> 3] &= ~(1 << (i & 7));
  }

  get count(): number {
    return this.used;
  }

  /** big.Int.Bytes(): big-endian, minimal. */
  encode(): Uint8Array {
    let top = this.bytes.length - 1;
    while (top >= 0 && this.bytes[top] === 0) top--;
    const out = new Uint8Array(top + 1);
    for (let i = 0; i <= top; i++) out[top - i] = this.bytes[i];
    return out;
  }

  /** big.Int.SetBytes(data); bits beyond size are ignored, as kube's Restore keeps them but never hands them out. */
  static decode(size: number, data: Uint8Array): Bitmap {
    const bm = new Bitmap(size);
    const n = data.length;
    for (let j = 0; j < n; j++) {
      const idx = n - 1 - j; // byte j counted from the least significant end
      if (j < bm.bytes.length) bm.bytes[j] = data[idx];
    }
    let used = 0;
    for (let i = 0; i < size; i++) if (bm.has(i)) used++;
    bm.used = used;
    return bm;
  }

  /**
   * kube's randomScanStrategyWithOffset: a random free bit in the upper band
   * [offset, size) first, then in the lower band [0, offset) — the lower band
   * stays free for static picks (ServiceIPStaticSubrange).
   */
  nextFree(offset: number, rand: (n: number) => number): number | undefined {
    if (this.used >= this.size) return undefined;
    const upper = this.size - offset;
    if (upper > 0) {
      const start = rand(upper);
      for (let i = 0; i < upper; i++) {
        const at = offset + ((start + i) % upper);
        if (!this.has(at)) return at;
      }
    }
    if (offset > 0) {
      const start = rand(offset);
      for (let i = 0; i < offset; i++) {
        const at = (start + i) % offset;
        if (!this.has(at)) return at;
      }
    }
    return undefined;
  }
}
