// Go's time.Duration as flags and logs spell it: parsing (time.ParseDuration,
// with its error texts) and printing (Duration.String) in milliseconds.

const HOUR_MS = 3_600_000;

const DURATION_UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Go's time.ParseDuration in milliseconds, or its error text ('time: invalid duration "bad"'). */
export function parseGoDurationStrict(orig: string): number | string {
  let s = orig;
  let neg = false;
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0;
  const invalid = `time: invalid duration "${orig}"`;
  if (s === '') return invalid;
  let total = 0;
  while (s !== '') {
    const num = /^(\d*)(?:\.(\d*))?/.exec(s)!;
    const digits = num[1]! + (num[2] ?? '');
    if (num[0] === '' || digits === '') return invalid;
    s = s.slice(num[0].length);
    const unit = /^[^\d.]*/.exec(s)![0];
    if (unit === '') return `time: missing unit in duration "${orig}"`;
    const scale = DURATION_UNIT_MS[unit];
    if (scale === undefined) return `time: unknown unit "${unit}" in duration "${orig}"`;
    s = s.slice(unit.length);
    total += Number(`${num[1] || '0'}.${num[2] ?? ''}0`) * scale;
  }
  return neg ? -total : total;
}

/** Go's time.ParseDuration ("10m", "1.5s", "1h2m", "0"), in milliseconds; undefined if malformed. */
export function parseGoDurationMs(text: string): number | undefined {
  if (text === '0') return 0;
  const m = /^([-+]?)((?:(?:\d+\.?\d*|\.\d+)(?:ns|us|µs|ms|s|m|h))+)$/.exec(text);
  if (m === null) return undefined;
  let total = 0;
  for (const part of m[2]!.matchAll(/(\d+\.?\d*|\.\d+)(ns|us|µs|ms|s|m|h)/g)) total += Number(part[1]) * DURATION_UNIT_MS[part[2]!]!;
  return m[1] === '-' ? -total : total;
}

/** Go's time.Duration String() for whole milliseconds ("1h0m0s", "30m0s", "2s", "1.5s", "500ms"). */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(ms);
  if (rest < 1000) return `${sign}${rest}ms`;
  const h = Math.floor(rest / HOUR_MS);
  rest -= h * HOUR_MS;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const s = `${Number((rest / 1000).toFixed(3))}s`;
  if (h > 0) return `${sign}${h}h${m}m${s}`;
  if (m > 0) return `${sign}${m}m${s}`;
  return `${sign}${s}`;
}
