import { describe, expect, it } from 'vitest';
import { humanDuration, shortHumanDuration, translateTimestampSince } from '../../../../main/apiserver/registry/tables/duration';

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;

describe('HumanDuration', () => {
  it.each([
    [-2 * s, '<invalid>'],
    [-1 * s, '0s'],
    [0, '0s'],
    [119 * s, '119s'],
    [2 * m, '2m'],
    [2 * m + 30 * s, '2m30s'],
    [10 * m + 30 * s, '10m'],
    [179 * m, '179m'],
    [3 * h, '3h'],
    [3 * h + 5 * m, '3h5m'],
    [8 * h + 5 * m, '8h'],
    [47 * h, '47h'],
    [2 * d, '2d'],
    [5 * d + 2 * h, '5d2h'],
    [8 * d + 2 * h, '8d'],
    [729 * d, '729d'],
    [2 * 365 * d + 10 * d, '2y10d'],
    [3 * 365 * d, '3y'],
    [9 * 365 * d + 5 * d, '9y'],
  ])('%d ms → %s', (ms, want) => expect(humanDuration(ms)).toBe(want));
});

describe('ShortHumanDuration', () => {
  it.each([
    [59 * s, '59s'],
    [90 * s, '1m'],
    [25 * h, '1d'],
    [400 * d, '1y'],
  ])('%d ms → %s', (ms, want) => expect(shortHumanDuration(ms)).toBe(want));
});

it('translateTimestampSince', () => {
  const now = new Date('2026-01-01T00:10:00Z');
  expect(translateTimestampSince('2026-01-01T00:05:00Z', now)).toBe('5m');
  expect(translateTimestampSince(null, now)).toBe('<unknown>');
});
