import { describe, expect, it } from 'vitest';
import { Cluster, enc } from './harness';

describe('cluster smoke', () => {
  it('elects and replicates', () => {
    const c = new Cluster([1n, 2n, 3n]);
    c.elect(1n);
    expect(c.leaders()).toEqual([1n]);
    c.get(1n).node.propose(enc('a'));
    c.stabilize();
    for (const id of [1n, 2n, 3n]) expect(c.appliedData(id)).toEqual(['a']);
  });
});
