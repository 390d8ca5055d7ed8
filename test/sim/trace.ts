// The last events of a simulation run, kept cheaply (objects, rendered only
// when a run fails) and rendered one readable line each.

import { describeMessage, type Message } from '../../main/etcd/raft/index';

type TraceEvent = { round: number; text: string } | { round: number; msg: Message; note: string };

export class Trace {
  private readonly ring: TraceEvent[] = [];
  private pos = 0;

  constructor(private readonly capacity = 50) {}

  note(round: number, text: string): void {
    this.push({ round, text });
  }

  message(round: number, note: string, msg: Message): void {
    this.push({ round, msg, note });
  }

  private push(e: TraceEvent): void {
    if (this.ring.length < this.capacity) this.ring.push(e);
    else this.ring[this.pos] = e;
    this.pos = (this.pos + 1) % this.capacity;
  }

  describe(): string {
    const ordered = this.ring.length < this.capacity ? this.ring : [...this.ring.slice(this.pos), ...this.ring.slice(0, this.pos)];
    return ordered
      .map((e) => `  r${String(e.round).padStart(4)} ` + ('text' in e ? e.text : `${e.note} ${describeMessage(e.msg)}`))
      .join('\n');
  }
}
