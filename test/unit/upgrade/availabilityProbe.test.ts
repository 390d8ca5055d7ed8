// The availability probe's arithmetic and loop, on a fake clock with scripted
// writers: when an unavailability window opens and closes, what a hung write
// counts as and that the next write waits for it, the bound of the loop, and
// the verification of acknowledged writes at the stop.

import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../main/client/kube/clock';
import { AvailabilityProbe, formatAvailability, type AvailabilityReport, type ProbeWriter } from '../../../main/upgrade/availabilityProbe';
import { ChannelTally, lostWrites, MAX_FAILURES_KEPT } from '../../../main/upgrade/availabilityTally';

const T0 = 1_700_000_000_000;
const iso = (ms: number) => new Date(T0 + ms).toISOString();

type Outcome = { ok: true; after: number } | { ok: false; after: number; error: string } | { hang: true; settleAfterAbort: number };
const ok = (after = 5): Outcome => ({ ok: true, after });
const refused = (after = 10): Outcome => ({ ok: false, after, error: 'connect ECONNREFUSED' });
const hang = (settleAfterAbort = 0): Outcome => ({ hang: true, settleAfterAbort });

/** A writer whose seq-th write does what script(seq) says, on the fake clock; present() reports every acknowledged seq but `lose`. */
function scriptedWriter(clock: FakeClock, script: (seq: number) => Outcome, opts: { lose?: number[]; presentFails?: boolean } = {}) {
  const acked: number[] = [];
  const starts: { seq: number; at: number }[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let cleanups = 0;
  let closed = false;
  const writer: ProbeWriter = {
    channel: 'etcd',
    write(seq, signal) {
      starts.push({ seq, at: clock.now() - T0 });
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      const o = script(seq);
      return new Promise<void>((resolve, reject) => {
        const end = (fn: () => void) => {
          inFlight--;
          fn();
        };
        if ('hang' in o) {
          signal.addEventListener('abort', () => clock.after(o.settleAfterAbort, () => end(() => reject(new Error('aborted')))), { once: true });
        } else
          clock.after(o.after, () =>
            end(() => {
              if (o.ok) {
                acked.push(seq);
                resolve();
              } else reject(new Error(o.error));
            }),
          );
      });
    },
    async present() {
      if (opts.presentFails) throw new Error('etcdserver: request timed out');
      return new Set(acked.filter((s) => !opts.lose?.includes(s)));
    },
    async cleanup() {
      cleanups++;
    },
    close() {
      closed = true;
    },
  };
  return { writer, starts, maxInFlight: () => maxInFlight, cleanups: () => cleanups, closed: () => closed };
}

const flush = () => new Promise<void>((r) => setImmediate(r));

/** Moves the fake clock ms forward, 1 ms at a time, letting the probe's promises run between steps. */
async function advance(clock: FakeClock, ms: number): Promise<void> {
  for (let i = 0; i < ms; i++) {
    clock.step(1);
    await flush();
  }
}

async function stopAt(clock: FakeClock, probe: AvailabilityProbe, stepMs = 10): Promise<AvailabilityReport> {
  const stopped = probe.stop();
  await advance(clock, stepMs);
  await flush();
  return stopped;
}

describe('ChannelTally', () => {
  type Event = { ack: number; at: number } | { fail: number; from: number; to: number };
  const cases: { name: string; events: Event[]; reportAt: number; want: { longest: number; window?: [number, number]; ongoing?: boolean; failedCount: number } }[] = [
    { name: 'every write acknowledged', events: [{ ack: 1, at: 5 }, { ack: 2, at: 105 }], reportAt: 200, want: { longest: 0, failedCount: 0 } },
    {
      name: 'from the first failed attempt after a success to the next acknowledged write',
      events: [{ ack: 1, at: 4 }, { fail: 2, from: 100, to: 2100 }, { fail: 3, from: 2100, to: 2105 }, { ack: 4, at: 2230 }],
      reportAt: 3000,
      want: { longest: 2130, window: [100, 2230], failedCount: 2 },
    },
    { name: 'a failure at the start opens the window there', events: [{ fail: 1, from: 0, to: 30 }, { ack: 2, at: 140 }], reportAt: 500, want: { longest: 140, window: [0, 140], failedCount: 1 } },
    {
      name: 'the longest of two windows',
      events: [{ fail: 1, from: 0, to: 10 }, { ack: 2, at: 120 }, { fail: 3, from: 200, to: 210 }, { fail: 4, from: 300, to: 310 }, { ack: 5, at: 450 }, { fail: 6, from: 500, to: 510 }, { ack: 7, at: 530 }],
      reportAt: 1000,
      want: { longest: 250, window: [200, 450], failedCount: 4 },
    },
    {
      name: 'a window still open is measured to the report and said to be ongoing',
      events: [{ ack: 1, at: 5 }, { fail: 2, from: 100, to: 110 }, { fail: 3, from: 200, to: 210 }],
      reportAt: 900,
      want: { longest: 800, window: [100, 900], ongoing: true, failedCount: 2 },
    },
    {
      name: 'an open window shorter than a closed one does not replace it',
      events: [{ fail: 1, from: 0, to: 10 }, { ack: 2, at: 1000 }, { fail: 3, from: 1100, to: 1110 }],
      reportAt: 1200,
      want: { longest: 1000, window: [0, 1000], failedCount: 2 },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const t = new ChannelTally('etcd');
      for (const e of c.events) {
        if ('ack' in e) t.acknowledged(e.ack, T0 + e.at);
        else t.failed(e.fail, T0 + e.from, T0 + e.to, 'x');
      }
      const r = t.report(T0 + c.reportAt);
      expect(r.longestUnavailableMs).toBe(c.want.longest);
      expect(r.longestWindow).toEqual(c.want.window ? { from: iso(c.want.window[0]), to: iso(c.want.window[1]), ...(c.want.ongoing ? { ongoing: true } : {}) } : undefined);
      expect(r.failedCount).toBe(c.want.failedCount);
      expect(r.writes).toBe(c.events.length);
      expect(r.acknowledged).toBe(c.events.filter((e) => 'ack' in e).length);
    });
  }

  it(`keeps the first ${MAX_FAILURES_KEPT} failures and counts them all`, () => {
    const t = new ChannelTally('apiserver');
    for (let seq = 1; seq <= MAX_FAILURES_KEPT + 5; seq++) t.failed(seq, T0 + seq * 100, T0 + seq * 100 + 7, 'refused');
    const r = t.report(T0 + 200_000);
    expect(r.failed).toHaveLength(MAX_FAILURES_KEPT);
    expect(r.failedCount).toBe(MAX_FAILURES_KEPT + 5);
    expect(r.failed[0]).toEqual({ channel: 'apiserver', seq: 1, at: iso(100), ms: 7, error: 'refused' });
  });

  it('lostWrites names the acknowledged seqs that are missing', () => {
    expect(lostWrites([1, 2, 3, 5, 8], new Set([1, 3, 4, 8]))).toEqual({ lost: 2, lostSeqs: [2, 5] });
    expect(lostWrites([], new Set([1]))).toEqual({ lost: 0, lostSeqs: [] });
  });
});

describe('AvailabilityProbe', () => {
  it('writes one at a time every interval; a hung write fails at the timeout and the next waits for it to end', async () => {
    const clock = new FakeClock(T0);
    // 1-3 answered, 4 refused, 5 hangs until aborted (then takes 300 ms to end), 6 on answered.
    const w = scriptedWriter(clock, (seq) => (seq === 4 ? refused(10) : seq === 5 ? hang(300) : ok(5)));
    const probe = new AvailabilityProbe({ runId: 'unit', intervalMs: 100, writeTimeoutMs: 2_000 }, { writers: [w.writer], clock });
    probe.start();
    await advance(clock, 3_000);
    const r = (await stopAt(clock, probe)).etcd!;

    expect(w.starts.slice(0, 7)).toEqual([
      { seq: 1, at: 0 },
      { seq: 2, at: 100 },
      { seq: 3, at: 200 },
      { seq: 4, at: 300 },
      { seq: 5, at: 400 },
      { seq: 6, at: 2_700 }, // timed out at 2400, ended at 2700
      { seq: 7, at: 2_800 },
    ]);
    expect(w.maxInFlight()).toBe(1);
    expect(r.failed).toEqual([
      { channel: 'etcd', seq: 4, at: iso(300), ms: 10, error: 'connect ECONNREFUSED' },
      { channel: 'etcd', seq: 5, at: iso(400), ms: 2_000, error: 'no answer within 2000 ms' },
    ]);
    expect(r.longestUnavailableMs).toBe(2_705 - 300);
    expect(r.longestWindow).toEqual({ from: iso(300), to: iso(2_705) });
    expect(r).toMatchObject({ writes: 9, acknowledged: 7, failedCount: 2, lost: 0, lostSeqs: [] });
    expect(w.cleanups()).toBe(1);
    expect(w.closed()).toBe(true);
  });

  it('reports acknowledged writes that are gone at the stop', async () => {
    const clock = new FakeClock(T0);
    const w = scriptedWriter(clock, () => ok(), { lose: [2, 4] });
    const probe = new AvailabilityProbe({ runId: 'unit', intervalMs: 100 }, { writers: [w.writer], clock });
    probe.start();
    await advance(clock, 550);
    const r = (await stopAt(clock, probe)).etcd!;
    expect(r).toMatchObject({ writes: 6, acknowledged: 6, lost: 2, lostSeqs: [2, 4], failedCount: 0, longestUnavailableMs: 0 });
    expect(r.verifyError).toBeUndefined();
  });

  it('says so when the writes cannot be read back, after retrying', async () => {
    const clock = new FakeClock(T0);
    const w = scriptedWriter(clock, () => ok(), { presentFails: true });
    const probe = new AvailabilityProbe({ runId: 'unit' }, { writers: [w.writer], clock });
    probe.start();
    await advance(clock, 250);
    const r = (await stopAt(clock, probe, 4_100)).etcd!;
    expect(r.verifyError).toBe('etcdserver: request timed out');
    expect(r.lost).toBe(0);
    expect(w.cleanups()).toBe(1);
    expect(formatAvailability({ startedAt: iso(0), endedAt: iso(250), etcd: r })).toEqual([
      `availability probe: ${iso(0)} to ${iso(250)} (0.3 s)`,
      'etcd: 3 writes, 0 failed, longest unavailability 0 ms, acknowledged writes not verified',
      '  etcd: could not read the writes back: etcdserver: request timed out',
    ]);
  });

  it('stops writing at maxDurationMs by itself, and the report ends there', async () => {
    const clock = new FakeClock(T0);
    const w = scriptedWriter(clock, () => ok());
    const probe = new AvailabilityProbe({ runId: 'unit', intervalMs: 100, maxDurationMs: 1_000 }, { writers: [w.writer], clock });
    probe.start();
    await advance(clock, 2_000);
    expect(w.starts).toHaveLength(10);
    const report = await stopAt(clock, probe);
    expect(report.startedAt).toBe(iso(0));
    expect(report.endedAt).toBe(iso(1_000));
    expect(report.etcd!.acknowledged).toBe(10);
  });

  it('shows an outage in progress in its snapshot', async () => {
    const clock = new FakeClock(T0);
    const w = scriptedWriter(clock, (seq) => (seq >= 3 ? refused(1) : ok(1)));
    const probe = new AvailabilityProbe({ runId: 'unit', intervalMs: 100 }, { writers: [w.writer], clock });
    probe.start();
    await advance(clock, 700);
    const live = probe.snapshot().etcd!;
    expect(live.longestUnavailableMs).toBe(500);
    expect(live.longestWindow).toEqual({ from: iso(200), to: iso(700), ongoing: true });
    await stopAt(clock, probe);
    await advance(clock, 500);
    expect(w.starts).toHaveLength(8); // 0, 100, …, 700: nothing after the stop
  });

  it('stop() is one stop: the same report twice, one clean-up', async () => {
    const clock = new FakeClock(T0);
    const w = scriptedWriter(clock, () => ok());
    const probe = new AvailabilityProbe({ runId: 'unit' }, { writers: [w.writer], clock });
    probe.start();
    await advance(clock, 150);
    const [a, b] = await Promise.all([probe.stop(), probe.stop()]);
    expect(a).toBe(b);
    expect(w.cleanups()).toBe(1);
  });

  it('formats each channel with its first failures', () => {
    const r: AvailabilityReport = {
      startedAt: iso(0),
      endedAt: iso(31_200),
      etcd: {
        writes: 312,
        acknowledged: 309,
        failed: [{ channel: 'etcd', seq: 40, at: iso(4_000), ms: 2_000, error: 'no answer within 2000 ms' }],
        failedCount: 3,
        longestUnavailableMs: 840,
        longestWindow: { from: iso(4_000), to: iso(4_840) },
        lost: 0,
        lostSeqs: [],
      },
      apiserver: { writes: 300, acknowledged: 300, failed: [], failedCount: 0, longestUnavailableMs: 0, lost: 1, lostSeqs: [17] },
    };
    expect(formatAvailability(r)).toEqual([
      `availability probe: ${iso(0)} to ${iso(31_200)} (31.2 s)`,
      `etcd: 312 writes, 3 failed, longest unavailability 840 ms (${iso(4_000)} to ${iso(4_840)}), 0 acknowledged writes lost`,
      `  etcd write 40 at ${iso(4_000)} failed after 2000 ms: no answer within 2000 ms`,
      'API server: 300 writes, 0 failed, longest unavailability 0 ms, 1 acknowledged write lost (seq 17)',
    ]);
  });

  const refusals = [
    { name: 'a runId that cannot name a ConfigMap', opts: { runId: 'Run_1' }, error: /runId "Run_1"/ },
    { name: 'no channel at all', opts: { runId: 'ok' }, error: /needs etcd endpoints, a kubeconfig/ },
    { name: 'a zero interval', opts: { runId: 'ok', intervalMs: 0, etcd: { endpoints: ['127.0.0.1:1'] } }, error: /intervalMs must be positive/ },
  ];
  for (const c of refusals) {
    it(`refuses ${c.name}`, () => {
      expect(() => new AvailabilityProbe(c.opts)).toThrow(c.error);
    });
  }
});
