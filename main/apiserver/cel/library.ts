// The Kubernetes CEL libraries (k8s.io/apiserver/pkg/cel/library) that admission
// expressions may call, on top of cel's standard functions and the strings
// extension that @bufbuild/cel ships (charAt, indexOf, lastIndexOf,
// lowerAscii, upperAscii, replace, split, substring, trim, join, format,
// strings.quote). Present here:
//   lists: <list>.isSorted(), .sum(), .min(), .max(), .indexOf(x), .lastIndexOf(x)
//   regex: <string>.find(re), .findAll(re), .findAll(re, n); matches(s, re)
//   strings: <string>.reverse()
//   authorizer: ./authz.ts; quantity(), isQuantity(): ./quantity.ts
// Not present: url(), ip()/cidr(), format.named.

import { CelScalar, celFunc, celMethod, isCelList, isCelUint, listType, type CelFunc, type CelList, type CelValue } from '@bufbuild/cel';

const DYN_LIST = listType(CelScalar.DYN);

/** Orders two comparable CEL values (ints, uints, doubles, strings, bools, bytes); undefined when they do not compare. */
function compare(a: CelValue, b: CelValue): number | undefined {
  const num = (v: CelValue): number | bigint | undefined => (typeof v === 'bigint' || typeof v === 'number' ? v : isCelUint(v) ? v.value : undefined);
  const na = num(a);
  const nb = num(b);
  if (na !== undefined && nb !== undefined) return na < nb ? -1 : na > nb ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  return undefined;
}

function items(l: CelList): CelValue[] {
  return [...l];
}

function sameKind(list: CelValue[]): void {
  for (let i = 1; i < list.length; i++) {
    if (compare(list[0]!, list[i]!) === undefined) throw new Error('no such overload');
  }
}

function equal(a: CelValue, b: CelValue): boolean {
  if (compare(a, b) === 0) return true;
  if (isCelList(a) && isCelList(b)) {
    const x = items(a);
    const y = items(b);
    return x.length === y.length && x.every((v, i) => equal(v, y[i]!));
  }
  return a === b;
}

function extreme(l: CelList, sign: number, name: string): CelValue {
  const xs = items(l);
  if (xs.length === 0) throw new Error(`${name}(list) called on empty list`);
  sameKind(xs);
  let best: CelValue = xs[0] as CelValue;
  for (const x of xs.slice(1)) if (compare(x, best)! * sign > 0) best = x;
  return best;
}

function regex(re: string): RegExp {
  // RE2 and JS agree on the syntax admission policies use; (?i) is RE2-only.
  const m = /^\(\?([ims]+)\)/.exec(re);
  return m ? new RegExp(re.slice(m[0].length), m[1]!.replace(/[^ims]/g, '') + 'g') : new RegExp(re, 'g');
}

export const kubernetesLibrary: CelFunc[] = [
  celMethod('isSorted', DYN_LIST, [], CelScalar.BOOL, function () {
    const xs = items(this);
    sameKind(xs);
    for (let i = 1; i < xs.length; i++) if (compare(xs[i - 1]!, xs[i]!)! > 0) return false;
    return true;
  }),
  celMethod('sum', DYN_LIST, [], CelScalar.DYN, function () {
    const xs = items(this);
    if (xs.length === 0) return 0n;
    sameKind(xs);
    if (xs.every((x) => typeof x === 'bigint')) return (xs as bigint[]).reduce((a, b) => a + b, 0n);
    if (xs.every((x) => typeof x === 'number')) return (xs as number[]).reduce((a, b) => a + b, 0);
    throw new Error('no such overload');
  }),
  celMethod('min', DYN_LIST, [], CelScalar.DYN, function () {
    return extreme(this, -1, 'min');
  }),
  celMethod('max', DYN_LIST, [], CelScalar.DYN, function () {
    return extreme(this, 1, 'max');
  }),
  celMethod('indexOf', DYN_LIST, [CelScalar.DYN], CelScalar.INT, function (x) {
    return BigInt(items(this).findIndex((v) => equal(v, x)));
  }),
  celMethod('lastIndexOf', DYN_LIST, [CelScalar.DYN], CelScalar.INT, function (x) {
    const xs = items(this);
    for (let i = xs.length - 1; i >= 0; i--) if (equal(xs[i]!, x)) return BigInt(i);
    return -1n;
  }),
  celMethod('find', CelScalar.STRING, [CelScalar.STRING], CelScalar.STRING, function (re) {
    return regex(re).exec(this)?.[0] ?? '';
  }),
  celMethod('findAll', CelScalar.STRING, [CelScalar.STRING], listType(CelScalar.STRING), function (re) {
    return [...this.matchAll(regex(re))].map((m) => m[0]);
  }),
  celMethod('findAll', CelScalar.STRING, [CelScalar.STRING, CelScalar.INT], listType(CelScalar.STRING), function (re, n) {
    const all = [...this.matchAll(regex(re))].map((m) => m[0]);
    return n < 0n ? all : all.slice(0, Number(n));
  }),
  celFunc('matches', [CelScalar.STRING, CelScalar.STRING], CelScalar.BOOL, (s, re) => new RegExp(re.replace(/^\(\?[ims]+\)/, '')).test(s)),
  celMethod('reverse', CelScalar.STRING, [], CelScalar.STRING, function () {
    return [...this].reverse().join('');
  }),
];
