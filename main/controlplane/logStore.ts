// Every supervised process's output, line by line: a bounded ring per
// component (the newest RING_LINES lines; the full history stays in the log
// file under DIR/logs, which this also appends to), searched by the Logs view,
// and pushed to the renderer as `logLines` batches (at most one per BATCH_MS,
// so a chatty member cannot flood the bridge).

import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import type { EventSink, LogLine } from '../../preload/contract';

export const RING_LINES = 5_000;
export const BATCH_MS = 100;
/** A line longer than this is cut (a runaway write without newlines). */
const MAX_LINE = 16 * 1024;

class Ring {
  private readonly lines: (LogLine | undefined)[];
  private head = 0;
  size = 0;
  constructor(readonly capacity: number) {
    this.lines = new Array<LogLine | undefined>(capacity);
  }
  push(l: LogLine): void {
    this.lines[this.head] = l;
    this.head = (this.head + 1) % this.capacity;
    this.size = Math.min(this.size + 1, this.capacity);
  }
  /** Oldest first. */
  all(): LogLine[] {
    const out: LogLine[] = [];
    for (let i = this.size; i > 0; i--) out.push(this.lines[(this.head - i + this.capacity) % this.capacity]!);
    return out;
  }
}

export class LogStore {
  private readonly rings = new Map<string, Ring>();
  private readonly seqs = new Map<string, number>();
  private readonly partial = new Map<string, string>();
  private readonly files = new Map<string, WriteStream>();
  private pending: LogLine[] = [];
  private timer: NodeJS.Timeout | undefined;
  private disposed = false;

  constructor(
    private readonly events: EventSink | undefined,
    private readonly capacity = RING_LINES,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Appends the raw output of a component also to `file` (created on first write). */
  attachFile(component: string, file: string): void {
    if (this.files.has(component)) return;
    mkdirSync(dirname(file), { recursive: true });
    const ws = createWriteStream(file, { flags: 'a' });
    ws.on('error', () => undefined); // a full disk must not take the console down; the ring still has the lines
    this.files.set(component, ws);
  }

  /** A chunk of a process's output; complete lines are recorded, a trailing partial line waits for its newline. */
  write(component: string, stream: 'stdout' | 'stderr', chunk: Buffer | string): void {
    const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    this.files.get(component)?.write(text);
    const key = `${component}\0${stream}`;
    const parts = ((this.partial.get(key) ?? '') + text).split('\n');
    let rest = parts.pop()!;
    if (rest.length > MAX_LINE) {
      parts.push(rest);
      rest = '';
    }
    this.partial.set(key, rest);
    for (const p of parts) this.record(component, stream, p.replace(/\r$/, ''));
  }

  /** A line from the supervisor itself about a component ("started pid 123", "exited code 1"). */
  note(component: string, text: string): void {
    this.files.get(component)?.write(`pilothouse-console: ${text}\n`);
    this.record(component, 'supervisor', text);
  }

  private record(component: string, stream: LogLine['stream'], text: string): void {
    if (this.disposed) return;
    const seq = (this.seqs.get(component) ?? 0) + 1;
    this.seqs.set(component, seq);
    let ring = this.rings.get(component);
    if (!ring) this.rings.set(component, (ring = new Ring(this.capacity)));
    const line: LogLine = { component, seq, at: this.now().toISOString(), stream, text: text.slice(0, MAX_LINE) };
    ring.push(line);
    if (!this.events) return;
    this.pending.push(line);
    this.timer ??= setTimeout(() => this.flush(), BATCH_MS);
  }

  private flush(): void {
    this.timer = undefined;
    if (this.pending.length === 0 || this.disposed) return;
    const batch = this.pending;
    this.pending = [];
    this.events!.emit('logLines', batch);
  }

  /** The newest `limit` lines (oldest first) of a component, optionally only those containing `search` (case-insensitive). */
  lines(component: string, search?: string, limit = 1_000): LogLine[] {
    const all = this.rings.get(component)?.all() ?? [];
    const needle = search?.toLowerCase();
    const hits = needle ? all.filter((l) => l.text.toLowerCase().includes(needle)) : all;
    return hits.slice(Math.max(0, hits.length - Math.max(0, limit)));
  }

  /** Whether a component has written a line of its own (not only the supervisor's notes about it). */
  hasOwnOutput(component: string): boolean {
    return this.rings.get(component)?.all().some((l) => l.stream !== 'supervisor') ?? false;
  }

  components(): string[] {
    return [...this.rings.keys()].sort();
  }

  async dispose(): Promise<void> {
    this.flush();
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.all([...this.files.values()].map((ws) => new Promise<void>((r) => ws.end(r))));
    this.files.clear();
  }
}
