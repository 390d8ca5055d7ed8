// kube's CEL quantity library (k8s.io/apiserver pkg/cel/library/quantity.go):
//
//   quantity('500m').isLessThan(quantity(object.spec.containers[0].resources.limits.cpu))
//   isQuantity(s), q.sign(), q.isInteger(), q.asInteger(), q.asApproximateFloat(),
//   q.add(q|int), q.sub(q|int), q.compareTo(q), q.isGreaterThan(q)
//
// A quantity is a map tagged '@kind': 'quantity' holding its exact value in
// nano units (so `==` compares values: quantity('1') == quantity('1000m'));
// the checker knows it as kubernetes.Quantity.

import { CelScalar, celFunc, celMethod, isCelMap, mapType, type CelFunc, type CelMap, type CelValue } from '@bufbuild/cel';
import { parseQuantity } from '../../kube/quota/quantity';
import type { Overload } from './check';
import { BOOL, DOUBLE, INT, STRING, objectOf } from './types';

const MAP = mapType(CelScalar.STRING, CelScalar.DYN);
const NANO = 1_000_000_000n;

function make(nanos: bigint): Map<string, unknown> {
  return new Map<string, unknown>([
    ['@kind', 'quantity'],
    ['nanos', nanos],
  ]);
}

function nanosOf(v: CelValue): bigint {
  if (!isCelMap(v) || v.get('@kind') !== 'quantity') throw new Error('no such overload');
  return (v as CelMap).get('nanos') as bigint;
}

function parse(s: string): bigint {
  try {
    return parseQuantity(s).nanos;
  } catch {
    // kube's wording for a string that is not a quantity.
    throw new Error('quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'');
  }
}

const cmp = (a: bigint, b: bigint): bigint => (a < b ? -1n : a > b ? 1n : 0n);
const INT64_MAX = 2n ** 63n - 1n;

export const quantityLibrary: CelFunc[] = [
  celFunc('quantity', [CelScalar.STRING], MAP, (s) => make(parse(s)) as never),
  celFunc('isQuantity', [CelScalar.STRING], CelScalar.BOOL, (s) => {
    try {
      parseQuantity(s);
      return true;
    } catch {
      return false;
    }
  }),
  celMethod('sign', MAP, [], CelScalar.INT, function () {
    return cmp(nanosOf(this), 0n);
  }),
  celMethod('isInteger', MAP, [], CelScalar.BOOL, function () {
    const n = nanosOf(this);
    return n % NANO === 0n && n / NANO <= INT64_MAX && n / NANO >= -INT64_MAX - 1n;
  }),
  celMethod('asInteger', MAP, [], CelScalar.INT, function () {
    const n = nanosOf(this);
    if (n % NANO !== 0n || n / NANO > INT64_MAX || n / NANO < -INT64_MAX - 1n) throw new Error('cannot convert value to integer');
    return n / NANO;
  }),
  celMethod('asApproximateFloat', MAP, [], CelScalar.DOUBLE, function () {
    return Number(nanosOf(this)) / 1e9;
  }),
  celMethod('add', MAP, [MAP], MAP, function (o) {
    return make(nanosOf(this) + nanosOf(o)) as never;
  }),
  celMethod('add', MAP, [CelScalar.INT], MAP, function (i) {
    return make(nanosOf(this) + i * NANO) as never;
  }),
  celMethod('sub', MAP, [MAP], MAP, function (o) {
    return make(nanosOf(this) - nanosOf(o)) as never;
  }),
  celMethod('sub', MAP, [CelScalar.INT], MAP, function (i) {
    return make(nanosOf(this) - i * NANO) as never;
  }),
  celMethod('isLessThan', MAP, [MAP], CelScalar.BOOL, function (o) {
    return nanosOf(this) < nanosOf(o);
  }),
  celMethod('isGreaterThan', MAP, [MAP], CelScalar.BOOL, function (o) {
    return nanosOf(this) > nanosOf(o);
  }),
  celMethod('compareTo', MAP, [MAP], CelScalar.INT, function (o) {
    return cmp(nanosOf(this), nanosOf(o));
  }),
];

const QUANTITY = objectOf('kubernetes.Quantity', {});

/** The typed signatures the checker uses (the evaluator only sees maps). */
export const quantitySignatures: [string, Overload[]][] = [
  ['quantity', [{ args: [STRING], result: QUANTITY }]],
  ['isQuantity', [{ args: [STRING], result: BOOL }]],
  ['sign', [{ target: QUANTITY, args: [], result: INT }]],
  ['isInteger', [{ target: QUANTITY, args: [], result: BOOL }]],
  ['asInteger', [{ target: QUANTITY, args: [], result: INT }]],
  ['asApproximateFloat', [{ target: QUANTITY, args: [], result: DOUBLE }]],
  [
    'add',
    [
      { target: QUANTITY, args: [QUANTITY], result: QUANTITY },
      { target: QUANTITY, args: [INT], result: QUANTITY },
    ],
  ],
  [
    'sub',
    [
      { target: QUANTITY, args: [QUANTITY], result: QUANTITY },
      { target: QUANTITY, args: [INT], result: QUANTITY },
    ],
  ],
  ['isLessThan', [{ target: QUANTITY, args: [QUANTITY], result: BOOL }]],
  ['isGreaterThan', [{ target: QUANTITY, args: [QUANTITY], result: BOOL }]],
  ['compareTo', [{ target: QUANTITY, args: [QUANTITY], result: INT }]],
];
