// A fake clock and a fake child for the process state machine's tests
// (supervisedProcess.test.ts, supervisor.test.ts): time moves and children
// exit only when a test says so.

import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import type { ChildLike, Clock } from '../../../main/controlplane/supervisedProcess';

/** Timers that fire only when the test advances time. */
export class FakeClock implements Clock {
  t = 1_000_000;
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private next = 1;
  now = () => this.t;
  setTimeout = (fn: () => void, ms: number) => {
    const id = this.next++;
    this.timers.push({ at: this.t + ms, fn, id });
    return id;
  };
  clearTimeout = (h: unknown) => {
    this.timers = this.timers.filter((x) => x.id !== h);
  };
  advance(ms: number): void {
    const until = this.t + ms;
    for (;;) {
      const due = this.timers.filter((x) => x.at <= until).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((x) => x !== due);
      this.t = due.at;
      due.fn();
    }
    this.t = until;
  }
  get pending(): number {
    return this.timers.length;
  }
}

/** A child that records signals; SIGKILL and (unless it ignores it) SIGTERM end it. */
export class FakeChild extends EventEmitter implements ChildLike {
  static nextPid = 100;
  readonly pid = FakeChild.nextPid++;
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  readonly signals: string[] = [];
  constructor(readonly ignoreTerm = false) {
    super();
  }
  kill(signal: NodeJS.Signals): boolean {
    this.signals.push(signal);
    if (signal === 'SIGKILL' || (signal === 'SIGTERM' && !this.ignoreTerm)) queueMicrotask(() => this.emit('exit', null, signal));
    return true;
  }
  crash(code = 1): void {
    this.emit('exit', code, null);
  }
}
