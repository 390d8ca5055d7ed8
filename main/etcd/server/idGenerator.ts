// Request ids, as etcd's pkg/idutil makes them: the member id's low 16 bits,
// then 40 bits of the start time in milliseconds, then an 8-bit counter that
// carries into the time bits. Unique across members (different prefixes) and
// across restarts (the time moves on), with no coordination.

import type { MemberId } from '../raft/types';

const TS_BITS = 40n;
const COUNT_BITS = 8n;
const SUFFIX_BITS = TS_BITS + COUNT_BITS;
const SUFFIX_MASK = (1n << SUFFIX_BITS) - 1n;

export class IdGenerator {
  private readonly prefix: bigint;
  private suffix: bigint;

  constructor(memberId: MemberId, nowMs: number) {
    this.prefix = (memberId & 0xffffn) << SUFFIX_BITS;
    const ms = BigInt(Math.floor(nowMs)) & ((1n << TS_BITS) - 1n);
    this.suffix = ms << COUNT_BITS;
  }

  next(): bigint {
    this.suffix = (this.suffix + 1n) & SUFFIX_MASK;
    return this.prefix | this.suffix;
  }
}
