import { describe, expect, it } from 'vitest';
import { addQuantity, compare, formatQuantity, milliValue, parseQuantity, prettyPrint, subQuantity, value } from '../../../../main/kube/quota/quantity';

describe('quota quantities', () => {
  const sums: { name: string; a: string; b: string; sum: string; diff: string }[] = [
    { name: 'milli cpu', a: '500m', b: '250m', sum: '750m', diff: '250m' },
    { name: 'whole cpu from millis', a: '500m', b: '500m', sum: '1', diff: '0' },
    { name: 'binary memory stays binary', a: '128Mi', b: '128Mi', sum: '256Mi', diff: '0' },
    { name: 'binary plus decimal keeps the left format', a: '1Gi', b: '1M', sum: '1074741824', diff: '1072741824' },
    { name: 'decimal plus binary keeps the left (decimal) format', a: '1k', b: '1Ki', sum: '2024', diff: '-24' },
    { name: 'counts', a: '2', b: '1', sum: '3', diff: '1' },
  ];
  for (const c of sums) {
    it(`sum and difference: ${c.name}`, () => {
      expect(formatQuantity(addQuantity(parseQuantity(c.a), parseQuantity(c.b)))).toBe(c.sum);
      expect(formatQuantity(subQuantity(parseQuantity(c.a), parseQuantity(c.b)))).toBe(c.diff);
    });
  }

  const rounding: { q: string; value: bigint; milli: bigint }[] = [
    { q: '100m', value: 1n, milli: 100n },
    { q: '1.5', value: 2n, milli: 1500n },
    { q: '1Gi', value: 1073741824n, milli: 1073741824000n },
    { q: '1n', value: 1n, milli: 1n },
  ];
  for (const c of rounding) {
    it(`Value/MilliValue round up: ${c.q}`, () => {
      expect(value(parseQuantity(c.q))).toBe(c.value);
      expect(milliValue(parseQuantity(c.q))).toBe(c.milli);
    });
  }

  it('compares across suffixes', () => {
    expect(compare(parseQuantity('1Gi'), parseQuantity('1024Mi'))).toBe(0);
    expect(compare(parseQuantity('0.1'), parseQuantity('50m'))).toBe(1);
    expect(compare(parseQuantity('1G'), parseQuantity('1Gi'))).toBe(-1);
  });

  it('prettyPrint sorts keys', () => {
    expect(prettyPrint(new Map([['requests.cpu', parseQuantity('1')], ['pods', parseQuantity('2')]]))).toBe('pods=2,requests.cpu=1');
  });
});
