// resource.Quantity in its canonical form, as kube writes every quantity it
// has decoded (apimachinery pkg/api/resource/quantity.go, String()):
//   - the suffix family of the input is kept: binary (Ki, Mi, ... Ei),
//     decimal SI (n, u, m, "", k, M, G, T, P, E) or decimal exponent (e3);
//   - decimal values become the shortest integer × 10^(3k): "1000m" → "1",
//     "0.5" → "500m", "2000" → "2k", "1e3" stays "1e3";
//   - binary values become integer × 1024^k when whole and at least 1024:
//     "1.5Gi" → "1536Mi", "2048Ki" → "2Mi"; otherwise they are shown in
//     decimal SI: "0.5Ki" → "512", "0.1Gi" → "107374182400m";
//   - precision beyond 1n is rounded up (away from zero).

export const quantityRegexpText = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
const quantityRegexp = new RegExp(quantityRegexpText);

export const quantityFormatError = `quantities must match the regular expression '${quantityRegexpText}'`;
export const quantitySuffixError = "unable to parse quantity's suffix";

const binarySuffixes: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const decimalSuffixes: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const decimalByExponent: Record<number, string> = Object.fromEntries(Object.entries(decimalSuffixes).map(([s, e]) => [e, s]));
const binaryByPower = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

type Format = 'BinarySI' | 'DecimalSI' | 'DecimalExponent';

interface Parsed {
  negative: boolean;
  /** |value| = num / den exactly. */
  num: bigint;
  den: bigint;
  format: Format;
}

function parse(input: string): Parsed {
  const s = input.trim();
  const m = quantityRegexp.exec(s);
  if (!m) throw new Error(quantityFormatError);
  let digits = m[1];
  const suffix = m[2];
  const negative = digits.startsWith('-');
  if (digits[0] === '-' || digits[0] === '+') digits = digits.slice(1);
  const parts = digits.split('.');
  if (parts.length > 2 || (parts[0] === '' && (parts[1] ?? '') === '')) throw new Error(quantityFormatError);
  const whole = parts[0] || '0';
  const frac = parts[1] ?? '';
  let num = BigInt(whole + frac);
  let den = 10n ** BigInt(frac.length);
  let format: Format;
  if (suffix in binarySuffixes) {
    format = 'BinarySI';
    num *= 1024n ** BigInt(binarySuffixes[suffix]);
  } else {
    let exp: number;
    if (suffix in decimalSuffixes) {
      format = 'DecimalSI';
      exp = decimalSuffixes[suffix];
    } else if (/^[eE][-+]?[0-9]+$/.test(suffix)) {
      format = 'DecimalExponent';
      exp = Number(suffix.slice(1));
    } else {
      throw new Error(quantitySuffixError);
    }
    if (exp >= 0) num *= 10n ** BigInt(exp);
    else den *= 10n ** BigInt(-exp);
  }
  return { negative: negative && num !== 0n, num, den, format };
}

function decimalForm(p: Parsed, format: 'DecimalSI' | 'DecimalExponent'): string {
  // Round up to nano units, then strip factors of 1000.
  let mantissa = (p.num * 10n ** 9n + p.den - 1n) / p.den;
  if (mantissa === 0n) return '0';
  let exp = -9;
  while (mantissa % 1000n === 0n) {
    mantissa /= 1000n;
    exp += 3;
  }
  const sign = p.negative ? '-' : '';
  if (format === 'DecimalSI' && exp in decimalByExponent) return `${sign}${mantissa}${decimalByExponent[exp]}`;
  return `${sign}${mantissa}${exp === 0 ? '' : `e${exp}`}`;
}

/** The canonical string of a quantity; throws kube's parse errors for invalid input. */
export function canonicalQuantity(input: string | number): string {
  const p = parse(String(input));
  if (p.format === 'BinarySI') {
    const whole = p.num % p.den === 0n;
    const value = p.num / p.den;
    if (!whole || value < 1024n) return decimalForm(p, 'DecimalSI');
    let mantissa = value;
    let power = 0;
    while (power < 6 && mantissa % 1024n === 0n) {
      mantissa /= 1024n;
      power++;
    }
    return `${p.negative ? '-' : ''}${mantissa}${binaryByPower[power]}`;
  }
  return decimalForm(p, p.format);
}

/** The canonical form when the input parses, else the input unchanged (strict decoding reports it). */
export function canonicalQuantityOrSame(input: unknown): string {
  if (typeof input !== 'string' && typeof input !== 'number') return '0';
  try {
    return canonicalQuantity(input);
  } catch {
    return String(input);
  }
}

/** Quantity.Cmp: -1, 0 or 1 as a is less than, equal to or greater than b (exact; throws on unparseable input). */
export function compareQuantities(a: string | number, b: string | number): number {
  const pa = parse(String(a));
  const pb = parse(String(b));
  const va = (pa.negative ? -pa.num : pa.num) * pb.den;
  const vb = (pb.negative ? -pb.num : pb.num) * pa.den;
  return va < vb ? -1 : va > vb ? 1 : 0;
}

/**
 * A quantity as Go's %#v prints a resource.Quantity held by value in a
 * field error (`Invalid value: resource.Quantity{i:resource.int64Amount{value:200, scale:-3}, ...}`):
 * ParseQuantity's int64 fast path (digits × 10^scale, binary suffixes
 * multiplied out at scale 0) and the input cached in `s` when it is already
 * canonical. Values outside the fast path print as their canonical string.
 */
export function goQuantityLiteral(input: string | number): string {
  const s = String(input).trim();
  const m = quantityRegexp.exec(s);
  const canonical = canonicalQuantityOrSame(s);
  if (!m) return JSON.stringify(s);
  let digits = m[1];
  const suffix = m[2];
  const negative = digits.startsWith('-');
  if (digits[0] === '-' || digits[0] === '+') digits = digits.slice(1);
  const [whole, frac = ''] = digits.split('.');
  let value: bigint;
  let scale: number;
  let format: Format;
  if (suffix in binarySuffixes) {
    if (frac !== '') return JSON.stringify(canonical);
    format = 'BinarySI';
    value = BigInt(whole || '0') << BigInt(10 * binarySuffixes[suffix]);
    scale = 0;
  } else {
    format = suffix in decimalSuffixes ? 'DecimalSI' : 'DecimalExponent';
    const exp = suffix in decimalSuffixes ? decimalSuffixes[suffix] : Number(suffix.slice(1));
    value = BigInt((whole || '0') + frac);
    scale = exp - frac.length;
    if (scale < -9) return JSON.stringify(canonical);
  }
  if (value > 2n ** 63n - 1n) return JSON.stringify(canonical);
  if (negative) value = -value;
  const cached = canonical === s ? s : '';
  return `resource.Quantity{i:resource.int64Amount{value:${value}, scale:${scale}}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:${JSON.stringify(cached)}, Format:${JSON.stringify(format)}}`;
}
