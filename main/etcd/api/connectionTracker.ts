// The open connections of a listener set, so close() can end them: at once
// (kill), or after in-flight gRPC calls finish (graceful stop).

import type { Socket } from 'node:net';

export class ConnectionTracker {
  private readonly open = new Set<Socket>();
  private emptied: (() => void)[] = [];

  get size(): number {
    return this.open.size;
  }

  add(socket: Socket): void {
    this.open.add(socket);
    socket.once('close', () => {
      this.open.delete(socket);
      if (this.open.size === 0) this.notifyEmpty();
    });
  }

  destroyAll(): void {
    for (const s of this.open) s.destroy();
  }

  /** Resolves when no connection is left, or after `ms` (true if emptied). */
  whenEmpty(ms: number): Promise<boolean> {
    if (this.open.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.emptied = this.emptied.filter((f) => f !== done);
        resolve(false);
      }, ms);
      timer.unref();
      const done = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.emptied.push(done);
    });
  }

  private notifyEmpty(): void {
    const waiting = this.emptied;
    this.emptied = [];
    for (const f of waiting) f();
  }
}
