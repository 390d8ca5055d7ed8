// The availability probe of a rolling upgrade: while members, then the API
// server, then the controllers are replaced one by one, it writes without
// pause through etcd and through the API server (probeWriters.ts), and at its
// stop tells the longest time each could not take a write, every failed
// write, and whether any acknowledged write went missing.
//
// Each channel is one loop: one write in flight at a time, a write started
// every intervalMs (at once after a slow one), a write that has no answer
// within writeTimeoutMs counted failed at that moment, though the next one
// still waits for it to end. The loops end at stop() or after maxDurationMs.
// stop() then reads back every acknowledged write (retrying a while, since
// the plane may be between two steps of the upgrade), removes what the run
// wrote, and returns the report; the arithmetic is availabilityTally.ts's.

import type { ChannelTls } from '../client/etcd/etcdChannel';
import { realClock, sleep, type Clock } from '../client/kube/clock';
import { kubeconfigClient } from '../controlplane/readiness';
import { ChannelTally, lostWrites, type ChannelReport, type ProbeChannel } from './availabilityTally';
import { apiServerProbeWriter, etcdProbeWriter, type ProbeWriter } from './probeWriters';

export type { ChannelReport, FailedWrite, ProbeChannel, UnavailableWindow } from './availabilityTally';
export type { ProbeWriter } from './probeWriters';

export interface ProbeOptions {
  /** Every member's client URL, and the client certificate when they are https. */
  etcd?: { endpoints: string[]; tls?: ChannelTls };
  /** A kubeconfig's path: the API server channel writes as its current user. */
  kubeconfig?: string;
  /** Names the keys and objects, so that runs never collide: lowercase letters, digits and '-', at most 40. */
  runId: string;
  /** Default 100. */
  intervalMs?: number;
  /** Default 2000: a write hanging longer counts as failed. */
  writeTimeoutMs?: number;
  /** Hard bound on the loops (default 30 min). */
  maxDurationMs?: number;
  now?: () => number;
}

export interface AvailabilityReport {
  startedAt: string;
  endedAt: string;
  etcd?: ChannelReport;
  apiserver?: ChannelReport;
}

/** For tests: writers and a clock in place of those the options would make. */
export interface ProbeInjections {
  writers?: ProbeWriter[];
  clock?: Clock;
}

const RUN_ID = /^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$/;
/** Verification and clean-up: tries, and the pause between them. */
const READ_BACK_ATTEMPTS = 5;
const READ_BACK_PAUSE_MS = 1_000;

interface ChannelRun {
  writer: ProbeWriter;
  tally: ChannelTally;
}

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e)) || String(e);

export class AvailabilityProbe {
  private readonly clock: Clock;
  private readonly intervalMs: number;
  private readonly writeTimeoutMs: number;
  private readonly maxDurationMs: number;
  private readonly channels: ChannelRun[];
  private readonly stopping = new AbortController();
  private loops: Promise<void>[] = [];
  private startedAt: number | undefined;
  private stopped: Promise<AvailabilityReport> | undefined;

  constructor(o: ProbeOptions, inject: ProbeInjections = {}) {
    if (!RUN_ID.test(o.runId)) throw new Error(`runId ${JSON.stringify(o.runId)}: lowercase letters, digits and '-' (not at the ends), at most 40`);
    this.intervalMs = o.intervalMs ?? 100;
    this.writeTimeoutMs = o.writeTimeoutMs ?? 2_000;
    this.maxDurationMs = o.maxDurationMs ?? 30 * 60_000;
    for (const [name, v] of [['intervalMs', this.intervalMs], ['writeTimeoutMs', this.writeTimeoutMs], ['maxDurationMs', this.maxDurationMs]] as const) {
      if (!(v > 0)) throw new Error(`${name} must be positive, not ${v}`);
    }
    this.clock = inject.clock ?? { now: o.now ?? Date.now, after: realClock.after };
    const writers = inject.writers ?? this.writersFor(o);
    if (writers.length === 0) throw new Error('the probe needs etcd endpoints, a kubeconfig, or both');
    if (new Set(writers.map((w) => w.channel)).size !== writers.length) throw new Error('one writer per channel');
    this.channels = writers.map((writer) => ({ writer, tally: new ChannelTally(writer.channel) }));
  }

  private writersFor(o: ProbeOptions): ProbeWriter[] {
    const writers: ProbeWriter[] = [];
    if (o.etcd) writers.push(etcdProbeWriter({ endpoints: o.etcd.endpoints, tls: o.etcd.tls, runId: o.runId, writeTimeoutMs: this.writeTimeoutMs }));
    if (o.kubeconfig) writers.push(apiServerProbeWriter({ rest: kubeconfigClient(o.kubeconfig, 'pilothouse-upgrade-probe'), runId: o.runId }));
    return writers;
  }

  start(): void {
    if (this.startedAt !== undefined || this.stopped) return;
    this.startedAt = this.clock.now();
    this.loops = this.channels.map((ch) => this.loop(ch));
  }

  /** Live figures for a progress display (an open window measured up to now). */
  snapshot(): AvailabilityReport {
    return this.report(this.writingEnd());
  }

  /** Stops writing, verifies every acknowledged write is still there, cleans up what it wrote, returns the report. */
  stop(): Promise<AvailabilityReport> {
    this.stopped ??= this.finish();
    return this.stopped;
  }

  private async finish(): Promise<AvailabilityReport> {
    this.stopping.abort();
    await Promise.all(this.loops);
    const report = this.report(this.writingEnd());
    for (const ch of this.channels) {
      const r = report[ch.writer.channel]!;
      try {
        const present = await this.readBack(() => ch.writer.present());
        Object.assign(r, lostWrites(ch.tally.acknowledgedSeqs(), present));
      } catch (e) {
        r.verifyError = errorText(e);
      }
      try {
        await this.readBack(() => ch.writer.cleanup());
      } catch (e) {
        r.cleanupError = errorText(e);
      }
      ch.writer.close();
    }
    return report;
  }

  /** Now, or the end of maxDurationMs when the loops stopped there. */
  private writingEnd(): number {
    const now = this.clock.now();
    return this.startedAt === undefined ? now : Math.min(now, this.startedAt + this.maxDurationMs);
  }

  private report(endMs: number): AvailabilityReport {
    const iso = (ms: number) => new Date(ms).toISOString();
    const r: AvailabilityReport = { startedAt: iso(this.startedAt ?? endMs), endedAt: iso(endMs) };
    for (const ch of this.channels) r[ch.writer.channel] = ch.tally.report(endMs);
    return r;
  }

  private async loop(ch: ChannelRun): Promise<void> {
    const deadline = this.startedAt! + this.maxDurationMs;
    for (let seq = 1; !this.stopping.signal.aborted; seq++) {
      const startedAt = this.clock.now();
      if (startedAt >= deadline) return;
      await this.attempt(ch, seq, startedAt);
      const next = Math.min(startedAt + this.intervalMs, deadline);
      if (next > this.clock.now()) await sleep(this.clock, next - this.clock.now(), this.stopping.signal);
    }
  }

  /** One write; never rejects. */
  private async attempt(ch: ChannelRun, seq: number, startedAt: number): Promise<void> {
    const abort = new AbortController();
    let pending: Promise<void>;
    try {
      pending = ch.writer.write(seq, abort.signal);
    } catch (e) {
      pending = Promise.reject(e);
    }
    const write = pending.then(
      () => ({ ok: true as const }),
      (e: unknown) => ({ ok: false as const, error: errorText(e) }),
    );
    let cancelTimer = () => {};
    const timedOut = new Promise<'timeout'>((resolve) => (cancelTimer = this.clock.after(this.writeTimeoutMs, () => resolve('timeout'))));
    const first = await Promise.race([write, timedOut]);
    cancelTimer();
    if (first === 'timeout') {
      ch.tally.failed(seq, startedAt, startedAt + this.writeTimeoutMs, `no answer within ${this.writeTimeoutMs} ms`);
      abort.abort();
      await write;
    } else if (first.ok) ch.tally.acknowledged(seq, this.clock.now());
    else ch.tally.failed(seq, startedAt, this.clock.now(), first.error);
  }

  private async readBack<T>(fn: () => Promise<T>): Promise<T> {
    for (let i = 1; ; i++) {
      try {
        return await fn();
      } catch (e) {
        if (i >= READ_BACK_ATTEMPTS) throw e;
        await sleep(this.clock, READ_BACK_PAUSE_MS);
      }
    }
  }
}

const CHANNEL_NAMES: Record<ProbeChannel, string> = { etcd: 'etcd', apiserver: 'API server' };
const FAILURES_SHOWN = 5;

/** Human lines: one per channel, then its first failures and anything that could not be checked. */
export function formatAvailability(r: AvailabilityReport): string[] {
  const secs = ((Date.parse(r.endedAt) - Date.parse(r.startedAt)) / 1000).toFixed(1);
  const lines = [`availability probe: ${r.startedAt} to ${r.endedAt} (${secs} s)`];
  for (const channel of ['etcd', 'apiserver'] as const) {
    const c = r[channel];
    if (!c) continue;
    const name = CHANNEL_NAMES[channel];
    const window = c.longestWindow ? ` (${c.longestWindow.from} to ${c.longestWindow.to}${c.longestWindow.ongoing ? ', still unavailable' : ''})` : '';
    const lost = c.verifyError !== undefined ? 'acknowledged writes not verified' : `${c.lost} acknowledged write${c.lost === 1 ? '' : 's'} lost${c.lost > 0 ? ` (seq ${c.lostSeqs.join(', ')}${c.lost > c.lostSeqs.length ? ', …' : ''})` : ''}`;
    lines.push(`${name}: ${c.writes} writes, ${c.failedCount} failed, longest unavailability ${c.longestUnavailableMs} ms${window}, ${lost}`);
    for (const f of c.failed.slice(0, FAILURES_SHOWN)) lines.push(`  ${name} write ${f.seq} at ${f.at} failed after ${f.ms} ms: ${f.error}`);
    if (c.failedCount > FAILURES_SHOWN) lines.push(`  … and ${c.failedCount - FAILURES_SHOWN} more failed writes`);
    if (c.verifyError !== undefined) lines.push(`  ${name}: could not read the writes back: ${c.verifyError}`);
    if (c.cleanupError !== undefined) lines.push(`  ${name}: could not remove the probe's writes: ${c.cleanupError}`);
  }
  return lines;
}
