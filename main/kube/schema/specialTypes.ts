// JSON forms of apimachinery's hand-written types, as their Go
// MarshalJSON/UnmarshalJSON write and read them:
//   metav1.Time      "2006-01-02T15:04:05Z" (UTC, whole seconds), null when zero
//   metav1.MicroTime "2006-01-02T15:04:05.000000Z" (always six digits)
//   metav1.Duration  time.Duration.String(): "1h0m0s", "1.5s", "300ms", "0s"

const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

// Objects repeat the same few timestamps (creation, transitions); remembering
// recent conversions saves a regex and a Date per field.
const parsedTimes = new Map<string, { seconds: number; nanos: number }>();
const formattedTimes = new Map<number, string>();
const CACHE_LIMIT = 4096;

/** Seconds since the epoch and nanoseconds of an RFC3339 string; throws on anything else (Go's time.Parse). */
export function parseRfc3339(s: string): { seconds: number; nanos: number } {
  let hit = parsedTimes.get(s);
  if (!hit) {
    hit = parseRfc3339Uncached(s);
    if (parsedTimes.size >= CACHE_LIMIT) parsedTimes.clear();
    parsedTimes.set(s, hit);
  }
  return hit;
}

function parseRfc3339Uncached(s: string): { seconds: number; nanos: number } {
  const m = rfc3339.exec(s);
  if (!m) throw new Error(`parsing time ${JSON.stringify(s)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(s)} as "2006"`);
  const [, y, mo, d, h, mi, sec, frac, zone] = m;
  // setUTCFullYear, unlike Date.UTC, keeps years 0-99 as they are.
  const dt = new Date(0);
  dt.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  dt.setUTCHours(Number(h), Number(mi), Number(sec), 0);
  let seconds = dt.getTime() / 1000;
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone[0] === '-' ? -1 : 1;
    seconds -= sign * (Number(zone.slice(1, 3)) * 3600 + Number(zone.slice(4, 6)) * 60);
  }
  const nanos = frac ? Number((frac.slice(1) + '000000000').slice(0, 9)) : 0;
  return { seconds, nanos };
}

function isoSeconds(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 19);
}

export function formatTime(seconds: number): string {
  let text = formattedTimes.get(seconds);
  if (text === undefined) {
    text = `${isoSeconds(seconds)}Z`;
    if (formattedTimes.size >= CACHE_LIMIT) formattedTimes.clear();
    formattedTimes.set(seconds, text);
  }
  return text;
}

export function formatMicroTime(seconds: number, nanos: number): string {
  const micros = Math.floor(nanos / 1000);
  return `${isoSeconds(seconds)}.${String(micros).padStart(6, '0')}Z`;
}

function fraction(value: bigint, digits: number): string {
  const div = 10n ** BigInt(digits);
  const whole = value / div;
  const frac = (value % div).toString().padStart(digits, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : `${whole}`;
}

/** Go's time.Duration.String() for a count of nanoseconds. */
export function formatDuration(ns: bigint | number): string {
  let u = BigInt(ns);
  if (u === 0n) return '0s';
  const neg = u < 0n;
  if (neg) u = -u;
  let text: string;
  if (u < 1_000_000_000n) {
    if (u < 1000n) text = `${u}ns`;
    else if (u < 1_000_000n) text = `${fraction(u, 3)}µs`;
    else text = `${fraction(u, 6)}ms`;
  } else {
    const secs = u / 1_000_000_000n;
    text = `${fraction((secs % 60n) * 1_000_000_000n + (u % 1_000_000_000n), 9)}s`;
    if (secs >= 60n) text = `${(secs / 60n) % 60n}m${text}`;
    if (secs >= 3600n) text = `${secs / 3600n}h${text}`;
  }
  return neg ? `-${text}` : text;
}

const unitNanos: Record<string, bigint> = {
  ns: 1n,
  us: 1000n,
  'µs': 1000n,
  'μs': 1000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

/** Go's time.ParseDuration; throws Go's message on bad input. */
export function parseDuration(s: string): bigint {
  const bad = () => new Error(`time: invalid duration ${JSON.stringify(s)}`);
  let rest = s;
  let neg = false;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    neg = rest[0] === '-';
    rest = rest.slice(1);
  }
  if (rest === '0') return 0n;
  if (rest === '') throw bad();
  let total = 0n;
  for (let guard = 0; rest !== '' && guard < 64; guard++) {
    const m = /^([0-9]*)(?:\.([0-9]*))?([^0-9.]+)/.exec(rest);
    if (!m || (m[1] === '' && (m[2] === undefined || m[2] === ''))) throw bad();
    const unit = unitNanos[m[3]];
    if (unit === undefined) throw new Error(`time: unknown unit ${JSON.stringify(m[3])} in duration ${JSON.stringify(s)}`);
    total += BigInt(m[1] || '0') * unit;
    if (m[2]) total += (BigInt(m[2]) * unit) / 10n ** BigInt(m[2].length);
    rest = rest.slice(m[0].length);
  }
  if (rest !== '') throw bad();
  return neg ? -total : total;
}
