// Kubernetes resource quantities ("100m", "128Mi", "1.5", "2e3") as plain
// numbers. The scheduler only compares and adds them, so a float in base units
// (cores, bytes, pods) is enough; cpu is compared in millicores, rounded up
// the way resource.Quantity.MilliValue() rounds.

const SUFFIX: Record<string, number> = {
  '': 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?)$/;

/** The value of a quantity in base units; throws on a malformed quantity. */
export function parseQuantity(q: string | number): number {
  if (typeof q === 'number') return q;
  const m = QUANTITY.exec(q.trim());
  if (!m) throw new Error(`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`);
  const base = Number(m[1]);
  if (m[2]) return base * 10 ** Number(m[2].slice(1));
  return base * SUFFIX[m[3] ?? '']!;
}

/** Millicores (or milli-units) rounded up, as Quantity.MilliValue. */
export function milliValue(q: string | number): number {
  return Math.ceil(Math.round(parseQuantity(q) * 1e6) / 1e3);
}

/** Whole units rounded up, as Quantity.Value (bytes for memory, a count for pods). */
export function value(q: string | number): number {
  return Math.ceil(Math.round(parseQuantity(q) * 1e3) / 1e3);
}
