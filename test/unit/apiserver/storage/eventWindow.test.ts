import { describe, expect, it } from 'vitest';
import { StorageError } from '../../../../main/apiserver/storage/interface';
import { EventWindow } from '../../../../main/apiserver/storage/eventWindow';
import type { ObjectEvent } from '../../../../main/apiserver/storage/watchEvents';

const ev = (rev: number): ObjectEvent => ({ type: 'PUT', key: `/k/${rev}`, rev: BigInt(rev), obj: { metadata: { name: String(rev) } } });

/** A window of capacity 3 after a list at 10 and puts at the given revisions. */
function windowWith(revs: number[]): EventWindow {
  const w = new EventWindow(3);
  w.reset(10n);
  for (const r of revs) w.push(ev(r));
  return w;
}

describe('event window', () => {
  const cases = [
    { name: 'empty after list: from listRV', revs: [], from: 10, want: [] },
    { name: 'empty after list: older than listRV is too old', revs: [], from: 9, err: 'too old resource version: 9 (10)' },
    { name: 'nothing evicted: all after rv', revs: [11, 12], from: 10, want: [11, 12] },
    { name: 'nothing evicted: from the middle', revs: [11, 12, 13], from: 12, want: [13] },
    { name: 'after eviction: oldest held rev-1 is servable', revs: [11, 12, 13, 14, 15], from: 12, want: [13, 14, 15] },
    { name: 'after eviction: older is too old, reported as oldest-1', revs: [11, 12, 13, 14, 15], from: 11, err: 'too old resource version: 11 (12)' },
    { name: 'rv beyond the newest: nothing', revs: [11, 12], from: 20, want: [] },
    { name: 'gaps in revisions (other prefixes)', revs: [15, 20, 30], from: 17, want: [20, 30] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const w = windowWith(c.revs);
      if (c.err) {
        let caught: unknown;
        try {
          w.since(BigInt(c.from), '/k/');
        } catch (e) {
          caught = e;
        }
        expect(caught).toBeInstanceOf(StorageError);
        expect((caught as StorageError).code).toBe('Expired');
        expect((caught as StorageError).message).toBe(c.err);
      } else {
        expect(w.since(BigInt(c.from)).map((e) => Number(e.rev))).toEqual(c.want);
      }
    });
  }

  it('keeps at most capacity events and rejects a bad capacity', () => {
    const w = windowWith([11, 12, 13, 14]);
    expect(w.size).toBe(3);
    expect(() => new EventWindow(0)).toThrow('watch cache capacity must be a positive integer');
  });
});
