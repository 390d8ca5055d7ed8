// Bookkeeping for ReadIndex requests on the leader under ReadOnlySafe
// (etcd-io/raft read_only.go). A request records the commit index at arrival;
// it may be answered once a majority acknowledged a heartbeat carrying its
// context, which proves nobody else was leader at that moment. Acks for a
// later request also confirm every earlier one (they were sent after it).

import { ReadOnlyOption, type Index, type MemberId, type Message } from './types';
import { bytesKey } from './util';

export interface ReadIndexStatus {
  req: Message;
  index: Index;
  acks: Map<MemberId, boolean>;
}

export class ReadOnly {
  private readonly pending = new Map<string, ReadIndexStatus>();
  private queue: string[] = [];

  constructor(readonly option: ReadOnlyOption) {}

  /** Records a ReadIndex request (context in m.entries[0].data) at commit index `index`. */
  addRequest(index: Index, m: Message): void {
    const key = bytesKey(m.entries[0]?.data);
    if (this.pending.has(key)) return;
    this.pending.set(key, { req: m, index, acks: new Map() });
    this.queue.push(key);
  }

  /** Notes id's heartbeat ack for the request with this context; undefined if no such request is pending. */
  recvAck(id: MemberId, context: Uint8Array | undefined): Map<MemberId, boolean> | undefined {
    const rs = this.pending.get(bytesKey(context));
    if (!rs) return undefined;
    rs.acks.set(id, true);
    return rs.acks;
  }

  /** Dequeues the request with this context and every request queued before it. */
  advance(context: Uint8Array | undefined): ReadIndexStatus[] {
    const key = bytesKey(context);
    const i = this.queue.indexOf(key);
    if (i < 0) return [];
    const done = this.queue.slice(0, i + 1);
    this.queue = this.queue.slice(i + 1);
    const out: ReadIndexStatus[] = [];
    for (const k of done) {
      const rs = this.pending.get(k);
      if (rs) out.push(rs);
      this.pending.delete(k);
    }
    return out;
  }

  /** The context of the newest pending request: heartbeats carry it so their acks confirm every pending read. */
  lastPendingRequestCtx(): Uint8Array | undefined {
    if (this.queue.length === 0) return undefined;
    return this.pending.get(this.queue[this.queue.length - 1]!)?.req.entries[0]?.data;
  }

  pendingCount(): number {
    return this.queue.length;
  }
}
