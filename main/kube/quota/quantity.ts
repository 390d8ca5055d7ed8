// resource.Quantity arithmetic for LimitRanger and ResourceQuota: exact
// values (a bigint of nano units — kube's own precision floor, 1n), sums,
// differences, comparisons, Value()/MilliValue() (both rounded up, as kube
// rounds), and the string kube would print for a sum: a Go Quantity keeps the
// format of the left operand, so `256Mi` stays binary and `1500m` decimal.
// The canonical spelling itself comes from schema/quantity.ts.

import { canonicalQuantity } from '../schema/quantity';

/** A quantity: exact nano units and the suffix family it was written in. */
export interface Quantity {
  nanos: bigint;
  binary: boolean;
}

export type ResourceList = Record<string, string>;

const NANO = 1_000_000_000n;
const BINARY_SUFFIX = /(Ki|Mi|Gi|Ti|Pi|Ei)$/;

/** Parses a quantity string (or number); throws kube's parse error for garbage. */
export function parseQuantity(input: string | number): Quantity {
  const canonical = canonicalQuantity(input);
  const binary = BINARY_SUFFIX.test(String(input).trim());
  return { nanos: canonicalNanos(canonical), binary };
}

function canonicalNanos(s: string): bigint {
  const m = /^(-?)(\d+)(.*)$/.exec(s);
  if (!m) throw new Error(`unexpected canonical quantity ${s}`);
  const sign = m[1] === '-' ? -1n : 1n;
  const mantissa = BigInt(m[2]);
  const suffix = m[3];
  const binary: Record<string, bigint> = { Ki: 1024n, Mi: 1024n ** 2n, Gi: 1024n ** 3n, Ti: 1024n ** 4n, Pi: 1024n ** 5n, Ei: 1024n ** 6n };
  const decimal: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
  if (suffix in binary) return sign * mantissa * binary[suffix] * NANO;
  const exp = suffix in decimal ? decimal[suffix] : Number(suffix.slice(1));
  const shift = exp + 9;
  return shift >= 0 ? sign * mantissa * 10n ** BigInt(shift) : sign * (mantissa / 10n ** BigInt(-shift));
}

function ceilDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a > 0n ? q + 1n : q;
}

/** Quantity.Value(): whole units, rounded up. */
export function value(q: Quantity): bigint {
  return ceilDiv(q.nanos, NANO);
}

/** Quantity.MilliValue(): milli units, rounded up. */
export function milliValue(q: Quantity): bigint {
  return ceilDiv(q.nanos, 1_000_000n);
}

export function compare(a: Quantity, b: Quantity): number {
  return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
}

/** The string kube prints for a quantity (binary family when whole bytes allow it). */
export function formatQuantity(q: Quantity): string {
  if (q.binary && q.nanos % NANO === 0n) {
    const whole = q.nanos / NANO;
    if (whole % 1024n === 0n && whole !== 0n) return canonicalQuantity(`${whole / 1024n}Ki`);
    return canonicalQuantity(String(whole));
  }
  return canonicalQuantity(`${q.nanos}n`);
}

/** a + b, in a's format (Go's Quantity.Add). */
export function addQuantity(a: Quantity, b: Quantity): Quantity {
  return { nanos: a.nanos + b.nanos, binary: a.binary };
}

export function subQuantity(a: Quantity, b: Quantity): Quantity {
  return { nanos: a.nanos - b.nanos, binary: a.binary };
}

export const ZERO: Quantity = { nanos: 0n, binary: false };

/** Parses every value of a ResourceList; bad values are skipped (validation refuses them before admission). */
export function parseList(list: unknown): Map<string, Quantity> {
  const out = new Map<string, Quantity>();
  if (typeof list !== 'object' || list === null) return out;
  for (const [k, v] of Object.entries(list as Record<string, unknown>)) {
    if (typeof v !== 'string' && typeof v !== 'number') continue;
    try {
      out.set(k, parseQuantity(v));
    } catch {
      // not a quantity
    }
  }
  return out;
}

export function formatList(list: Map<string, Quantity>): ResourceList {
  const out: ResourceList = {};
  for (const k of [...list.keys()].sort()) out[k] = formatQuantity(list.get(k)!);
  return out;
}

/** quota.Add: every key of both; a's format where both have it. */
export function addLists(a: Map<string, Quantity>, b: Map<string, Quantity>): Map<string, Quantity> {
  const out = new Map(a);
  for (const [k, v] of b) out.set(k, out.has(k) ? addQuantity(out.get(k)!, v) : v);
  return out;
}

/** quota.Subtract: keys of a, minus b where present. */
export function subtractLists(a: Map<string, Quantity>, b: Map<string, Quantity>): Map<string, Quantity> {
  const out = new Map<string, Quantity>();
  for (const [k, v] of a) out.set(k, b.has(k) ? subQuantity(v, b.get(k)!) : v);
  return out;
}

/** quota.Mask: only the named keys. */
export function maskList(a: Map<string, Quantity>, names: Iterable<string>): Map<string, Quantity> {
  const out = new Map<string, Quantity>();
  for (const n of names) if (a.has(n)) out.set(n, a.get(n)!);
  return out;
}

/** quota.Equals. */
export function listsEqual(a: Map<string, Quantity>, b: Map<string, Quantity>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (!b.has(k) || b.get(k)!.nanos !== v.nanos) return false;
  return true;
}

/** `k=v` pairs sorted by key, comma-joined (resourcequota's prettyPrint). */
export function prettyPrint(list: Map<string, Quantity>): string {
  return [...list.keys()]
    .sort()
    .map((k) => `${k}=${formatQuantity(list.get(k)!)}`)
    .join(',');
}
