// An in-memory network between simulated members: per-message delay (which
// reorders), drops, duplicates and partitions, all drawn from the run's PRNG.

import type { MemberId, Message } from '../../main/etcd/raft/index';
import type { Prng } from './prng';

export interface NetworkFaults {
  dropRate: number;
  duplicateRate: number;
  /** Delay in rounds is 1 + int(maxDelay); occasionally much longer (reordering). */
  maxDelay: number;
}

interface InFlight {
  deliverAt: number;
  m: Message;
}

export class Network {
  private inFlight: InFlight[] = [];
  /** Each member's side; members on different sides cannot talk. Absent = side 0. */
  private side = new Map<MemberId, number>();

  constructor(
    private readonly rng: Prng,
    public faults: NetworkFaults,
    /** Told about every message the network loses (the transport of a real member notices failed sends). */
    private readonly onLost: (m: Message) => void = () => {},
  ) {}

  get pending(): number {
    return this.inFlight.length;
  }

  send(round: number, m: Message): void {
    if (this.rng.chance(this.faults.dropRate)) {
      this.onLost(m);
      return;
    }
    const copies = this.rng.chance(this.faults.duplicateRate) ? 2 : 1;
    for (let i = 0; i < copies; i++) {
      let delay = 1 + this.rng.int(this.faults.maxDelay);
      if (this.rng.chance(0.02)) delay += this.rng.int(20);
      this.inFlight.push({ deliverAt: round + delay, m });
    }
  }

  /** Messages due by `round`, in random order; a message crossing a partition is lost. */
  due(round: number): Message[] {
    const out: Message[] = [];
    const keep: InFlight[] = [];
    for (const f of this.inFlight) {
      if (f.deliverAt > round) keep.push(f);
      else if (this.connected(f.m.from, f.m.to)) out.push(f.m);
      else this.onLost(f.m);
    }
    this.inFlight = keep;
    return this.rng.shuffle(out);
  }

  connected(a: MemberId, b: MemberId): boolean {
    return (this.side.get(a) ?? 0) === (this.side.get(b) ?? 0);
  }

  partition(groups: MemberId[][]): void {
    this.side.clear();
    groups.forEach((g, i) => g.forEach((id) => this.side.set(id, i)));
  }

  heal(): void {
    this.side.clear();
  }

  isPartitioned(): boolean {
    return new Set(this.side.values()).size > 1;
  }

  describePartition(): string {
    const groups = new Map<number, MemberId[]>();
    for (const [id, s] of this.side) groups.set(s, [...(groups.get(s) ?? []), id]);
    return [...groups.values()].map((g) => `{${g.join(',')}}`).join(' ');
  }
}
