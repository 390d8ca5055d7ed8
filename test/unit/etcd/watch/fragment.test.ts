// etcd's sendFragments on wire replies: whole below the limit or with one
// event; otherwise parts of as many events as fit (at least one each), all
// but the last marked fragment, events in order and none lost.

import { describe, expect, it } from 'vitest';
import { fragmentReply, type WireWatchResponse } from '../../../../main/etcd/api/watchService';
import { etcdRoot } from '../../../../main/common/etcdProtos';

function reply(sizes: number[]): WireWatchResponse {
  return {
    header: { cluster_id: 1, member_id: 2, revision: 9, raft_term: 3 },
    watch_id: 4,
    events: sizes.map((n, i) => ({
      type: 0,
      kv: { key: new TextEncoder().encode(`k${i}`), create_revision: 2, mod_revision: 2 + i, version: 1, value: new Uint8Array(n), lease: 0 },
    })),
  };
}

const encodedLength = (r: WireWatchResponse) =>
  etcdRoot().lookupType('etcdserverpb.WatchResponse').encode(r as never).finish().length;

describe('fragmentReply', () => {
  it('leaves a reply below the limit, or with a single event, whole', () => {
    const small = reply([10, 10, 10]);
    expect(fragmentReply(small, 1000)).toEqual([small]);
    const single = reply([5000]);
    expect(fragmentReply(single, 100)).toEqual([single]);
  });

  it('splits a large reply into parts below the limit, the last one not marked', () => {
    const big = reply([300, 300, 300, 300, 300, 2000, 300]);
    const parts = fragmentReply(big, 1000);
    expect(parts.map((p) => p.events.length)).toEqual([3, 2, 1, 1]);
    expect(parts.map((p) => p.fragment)).toEqual([true, true, true, false]);
    expect(parts.flatMap((p) => p.events)).toEqual(big.events);
    for (const p of parts) {
      if (p.events.length > 1) expect(encodedLength(p)).toBeLessThan(1000);
      expect(p.watch_id).toBe(4);
      expect(p.header).toBe(big.header);
    }
  });
});
