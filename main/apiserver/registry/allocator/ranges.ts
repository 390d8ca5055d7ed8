// The two ranges services draw from: IPv4 addresses of a CIDR (network and
// broadcast addresses never handed out) and a port range "30000-32767".
// Offsets are what the bitmap stores; sizes and the static-subrange offset
// follow kube's ipallocator / portallocator.

export interface RangeSpec<T> {
  /** Stored as RangeAllocation.range. */
  readonly spec: string;
  readonly size: number;
  /** Start of the band dynamic allocation prefers (calculateRangeOffset). */
  readonly offset: number;
  /** Offset of a value, or undefined when outside the range. */
  offsetOf(value: T): number | undefined;
  valueAt(offset: number): T;
  /** kube's ErrNotInRange text. */
  notInRange(value: T): string;
}

export function parseIPv4(ip: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return undefined;
  return ((parts[0] << 24) >>> 0) + (parts[1] << 16) + (parts[2] << 8) + parts[3];
}

export const formatIPv4 = (n: number): string => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');

/** min(max(lo, size/step), hi), zero below lo (both allocators use this shape). */
function rangeOffset(size: number, lo: number, step: number, hi: number): number {
  if (size < lo) return 0;
  const o = Math.floor(size / step);
  return o < lo ? lo : o > hi ? hi : o;
}

export function ipRange(cidr: string): RangeSpec<string> {
  const m = /^([\d.]+)\/(\d{1,2})$/.exec(cidr);
  const ip = m ? parseIPv4(m[1]) : undefined;
  const bits = m ? Number(m[2]) : NaN;
  if (ip === undefined || !(bits >= 0 && bits <= 30)) throw new Error(`invalid service cluster IP range ${JSON.stringify(cidr)} (IPv4 CIDR of /30 or larger expected)`);
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  const network = (ip & mask) >>> 0;
  const total = 2 ** (32 - bits);
  const spec = `${formatIPv4(network)}/${bits}`;
  const base = network + 1; // never the network address
  const size = total - 2; // nor the broadcast address
  return {
    spec,
    size,
    offset: rangeOffset(total, 16, 16, 256),
    offsetOf(value) {
      const n = parseIPv4(value);
      if (n === undefined) return undefined;
      const off = n - base;
      return off >= 0 && off < size ? off : undefined;
    },
    valueAt: (off) => formatIPv4(base + off),
    notInRange: (value) => `the provided IP (${value}) is not in the valid range. The range of valid IPs is ${spec}`,
  };
}

export function portRange(range: string): RangeSpec<number> {
  const m = /^(\d+)(?:-(\d+))?$/.exec(range.trim());
  const lo = m ? Number(m[1]) : NaN;
  const hi = m ? (m[2] === undefined ? lo : Number(m[2])) : NaN;
  if (!(lo >= 1 && hi <= 65535 && hi >= lo)) throw new Error(`invalid node port range ${JSON.stringify(range)}`);
  const size = hi - lo + 1;
  const spec = `${lo}-${hi}`;
  return {
    spec,
    size,
    offset: rangeOffset(size, 16, 32, 128),
    offsetOf: (p) => (Number.isInteger(p) && p >= lo && p <= hi ? p - lo : undefined),
    valueAt: (off) => lo + off,
    notInRange: () => `provided port is not in the valid range. The range of valid ports is ${spec}`,
  };
}
