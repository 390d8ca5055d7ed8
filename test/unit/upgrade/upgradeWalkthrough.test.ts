// The upgrade walkthrough's definition run by the real engine, with the plan,
// the rehearsal and the apply stood in for by fakes over one fake plane (which
// components run their target). The plane outlives the engines, as a real
// plane outlives the app: a second engine over the same folder is the app
// started again.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApplyOptions, ApplyReport, ComponentOutcome } from '../../../main/upgrade/apply';
import type { ApplyPlane } from '../../../main/upgrade/applyPlane';
import type { UpgradePlan } from '../../../main/upgrade/plan';
import type { RehearsalReport } from '../../../main/upgrade/rehearsal';
import { upgradeWalkthrough, type UpgradeParams, type UpgradeRun, type UpgradeWalkthroughEnv } from '../../../main/upgrade/upgradeWalkthrough';
import { WalkthroughEngine } from '../../../main/walkthrough/engine';
import type { RunRecord } from '../../../main/walkthrough/types';
import { eventually } from '../../support/waitFor';

const ORDER = ['m1', 'm3', 'm2', 'apiserver', 'controllers'];

function plan(dataDir: string): UpgradePlan {
  const kind = (id: string) => (id === 'apiserver' ? 'apiserver' : id === 'controllers' ? 'controllers' : 'etcd') as 'etcd';
  return {
    dataDir,
    settings: [{ kind: 'etcd', flag: 'quota-backend-bytes', value: '4294967296' }],
    components: ORDER.map((id, i) => ({
      id, kind: kind(id), pid: 100 + i,
      current: { version: '0.1.0', flags: [] }, target: { version: '0.1.0', flags: [] },
      flagChanges: kind(id) === 'etcd' ? [{ flag: 'quota-backend-bytes', to: '4294967296' }] : [],
    })),
    order: ORDER, leader: 'm2', skew: [{ ok: true, message: 'no version changes' }] as UpgradePlan['skew'],
    preflight: [{ name: 'backup', ok: true, detail: 'newest verified backup a.db, taken 1 min ago' }],
    refusals: [], forceable: [],
  };
}

const availability = {
  startedAt: '2025-01-01T00:00:00.000Z', endedAt: '2025-01-01T00:01:00.000Z',
  etcd: { writes: 600, acknowledged: 598, failed: [], failedCount: 2, longestUnavailableMs: 1200, lost: 0, lostSeqs: [] },
  apiserver: { writes: 300, acknowledged: 299, failed: [], failedCount: 1, longestUnavailableMs: 800, lost: 0, lostSeqs: [] },
};

/** A rehearsal's apply on the copy. */
function scratchApply(over: Partial<ApplyReport>): ApplyReport {
  return { dataDir: '/tmp/scratch', runId: 'scratch', ok: true, forced: [], components: [], durationMs: 3000, next: [], ...over };
}

/** The plane as the fakes see it: which components run their target, and what the apply instances were asked. */
interface FakePlane {
  upgraded: Set<string>;
  /** A component whose replacement hangs (waiting to be back) until its step is aborted. */
  hang?: string;
  /** A component that does not come back and is rolled back. */
  breaks?: string;
  instances: { continueRun?: string; begins: number; finished: boolean; probeStopped: boolean }[];
}

function fakeApply(fp: FakePlane, o: ApplyOptions): UpgradeRun {
  const me = { ...(o.continueRun && { continueRun: o.continueRun }), begins: 0, finished: false, probeStopped: false };
  fp.instances.push(me);
  let signal: AbortSignal | undefined;
  let log: (l: string) => void = () => {};
  const report: ApplyReport = { dataDir: o.plane.dataDir, runId: o.continueRun ?? `run${fp.instances.length}`, ok: false, forced: [], components: [], durationMs: 0, next: [] };
  let begun = false;
  // as UpgradeApply's: once, and every step method calls it
  const begin = async () => {
    if (begun) return;
    begun = true;
    me.begins++;
  };
  const outcome = (id: string, o2: Omit<ComponentOutcome, 'id' | 'kind' | 'ms'>): ComponentOutcome => ({ id, kind: 'etcd', ms: 10, ...o2 });
  return {
    report,
    refusals: () => [],
    attach(l, s) {
      log = l;
      signal = s;
    },
    begin,
    async component(id) {
      await begin();
      if (fp.upgraded.has(id)) return outcome(id, { outcome: 'unchanged', detail: 'already runs its target' });
      if (id === fp.breaks) {
        log(`${id}: not back within the timeout; rolling it back`);
        return outcome(id, {
          outcome: 'rolled-back', detail: 'not healthy within 5000 ms',
          seen: { state: 'backoff', restarts: 3, lastExit: { code: 1, signal: null, at: '2025-01-01T00:00:00.000Z' }, health: 'connection refused', logTail: ['etcd: --election-timeout must be at least 5 heartbeats'] },
          rollback: `${id} was rolled back and is healthy again`,
        });
      }
      fp.upgraded.add(id);
      if (id === fp.hang) {
        await new Promise((_, reject) => signal!.addEventListener('abort', () => reject(signal!.reason as Error), { once: true }));
      }
      return outcome(id, { outcome: 'upgraded', detail: 'healthy and caught up' });
    },
    async cycleNodes() {
      await begin();
      return { ok: true, lines: ['node-1, node-2, node-3 Ready under the new kubelet'] };
    },
    async migrate() {
      return [];
    },
    async finish() {
      me.finished = true;
      report.ok = ORDER.every((id) => fp.upgraded.has(id));
      report.availability = availability;
      report.next = ['The upgrade is complete.'];
      return report;
    },
    async abandon() {},
    async stopProbe() {
      me.probeStopped = true;
    },
  };
}

let dir: string;
let engines: WalkthroughEngine[];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ph-upgrade-walkthrough-'));
  engines = [];
});
afterEach(() => {
  for (const e of engines) e.dispose();
  rmSync(dir, { recursive: true, force: true });
});

function engine(fp: FakePlane, rehearsal: Partial<RehearsalReport> = { ok: true }): WalkthroughEngine {
  const env: UpgradeWalkthroughEnv = {
    plane: () => ({ dataDir: join(dir, 'plane'), close() {} }) as unknown as ApplyPlane,
    backup: { address: { members: [{ name: 'm1', url: 'https://127.0.0.1:1' }], tlsFlags: '' }, connect: () => { throw new Error('no backup in these tests'); } },
    cliPath: '/nowhere/cli.js',
    makePlan: async (o) => plan(o.dataDir),
    rehearse: async () => ({ backup: 'a.db', durationMs: 4200, ok: false, ...rehearsal }),
    apply: (o) => fakeApply(fp, o),
  };
  const e = new WalkthroughEngine({ dir: join(dir, 'walkthroughs'), definitions: [upgradeWalkthrough(env)] });
  engines.push(e);
  return e;
}

function params(over: Partial<UpgradeParams> = {}): UpgradeParams {
  return { dataDir: join(dir, 'plane'), set: ['etcd.quota-backend-bytes=4294967296'], timeoutMs: 5000, timeout: '5s', rehearse: true, rehearseBadFlag: false, force: false, order: ORDER, ...over };
}

const states = (r: RunRecord | undefined) => Object.fromEntries((r?.steps ?? []).map((s) => [s.id, s.state]));

async function atGate(e: WalkthroughEngine, id: string): Promise<void> {
  await eventually('run waiting at the gate', () => e.get(id)?.state === 'waiting');
  e.confirm(id);
}

describe('upgrade walkthrough', () => {
  it('plans, rehearses, waits at the gate showing the apply command, replaces each component in order and reports the figures', async () => {
    const fp: FakePlane = { upgraded: new Set(), instances: [] };
    const e = engine(fp, { ok: true, apply: scratchApply({ availability }) });
    const { id, steps } = await e.start('upgrade', params());
    expect(steps.map((s) => s.id)).toEqual(['plan', 'backup', 'rehearse', 'apply', ...ORDER, 'nodes', 'migrate', 'report']);
    const gate = steps.find((s) => s.gate === 'confirm')!;
    expect(gate.id).toBe('apply');
    expect(gate.command).toBe(`pilothouse upgrade apply --data-dir ${join(dir, 'plane')} --set etcd.quota-backend-bytes=4294967296 --timeout 5s`);
    await eventually('run waiting', () => e.get(id)?.state === 'waiting');
    expect(fp.instances).toHaveLength(0); // nothing touched the live plane before the confirmation
    e.confirm(id);
    const run = await e.wait(id);
    expect(run.state).toBe('succeeded');
    const byId = Object.fromEntries(run.steps.map((s) => [s.id, s]));
    expect(byId.plan!.output.join('\n')).toMatch(/\|\s+COMPONENT\s+\|[\s\S]*--quota-backend-bytes: \(unset\) → 4294967296/);
    expect(byId.backup!.verdict).toBe('not needed: newest verified backup a.db, taken 1 min ago');
    expect(byId.rehearse!.verdict).toMatch(/^the rehearsal succeeded in 4\.2 s; etcd.*longest unavailability 1200 ms/);
    expect(byId.migrate!.verdict).toBe('skipped: no flag change alters how objects are stored');
    expect(byId.report!.verdict).toMatch(/^upgrade complete in /);
    expect(fp.instances).toEqual([{ begins: 1, finished: true, probeStopped: false }]);
    expect(run.figures).toMatchObject({ rehearsalMs: 4200, etcdLongestUnavailableMs: 1200, apiServerLongestUnavailableMs: 800, writesFailed: 3, writesLost: 0, m1: 'upgraded', controllers: 'upgraded' });
    expect(typeof run.figures!.durationMs).toBe('number');
  });

  it('survives an app restart mid-component: a fresh engine carries on with the recorded apply run and finishes', async () => {
    const fp: FakePlane = { upgraded: new Set(), hang: 'm2', instances: [] };
    const first = engine(fp);
    const { id } = await first.start('upgrade', params({ rehearse: false }));
    await atGate(first, id);
    await eventually('m2 replaced and waited for', () => first.get(id)?.steps.find((s) => s.id === 'm2')?.state === 'running' && fp.upgraded.has('m2'));
    first.dispose(); // the app closes: run.json still says running, at m2

    const second = engine(fp);
    await second.recover();
    const run = await second.wait(id);
    expect(run.state).toBe('succeeded');
    expect(states(run)).toMatchObject({ m1: 'succeeded', m3: 'succeeded', m2: 'succeeded', apiserver: 'succeeded', report: 'succeeded' });
    const m2 = run.steps.find((s) => s.id === 'm2')!;
    expect(m2.output).toContain('--- the app stopped while this step was running; running it again ---');
    expect(m2.verdict).toBe('m2 already ran its target: left alone');
    // the second instance carries on with the first's run, and each began once
    expect(fp.instances).toEqual([{ begins: 1, finished: false, probeStopped: false }, { continueRun: 'run1', begins: 1, finished: true, probeStopped: false }]);
  });

  it('a component that is rolled back fails its step with the rollback and what it saw; retry after the fix goes on', async () => {
    const fp: FakePlane = { upgraded: new Set(), breaks: 'm3', instances: [] };
    const e = engine(fp);
    const { id } = await e.start('upgrade', params({ rehearse: false }));
    await atGate(e, id);
    const failed = await e.wait(id);
    expect(failed.state).toBe('failed');
    const m3 = failed.steps.find((s) => s.id === 'm3')!;
    expect(m3.error).toBe('m3: not healthy within 5000 ms; m3 was rolled back and is healthy again');
    expect(m3.output).toEqual(expect.arrayContaining(['m3 did not come back: what it showed:', '  last exit: code 1', '  health: connection refused', '    etcd: --election-timeout must be at least 5 heartbeats']));
    expect(states(failed)).toMatchObject({ m1: 'succeeded', m3: 'failed', m2: 'pending' });
    // the run may wait on the user for long: the probe does not write on meanwhile
    expect(fp.instances[0]!.probeStopped).toBe(true);
    delete fp.breaks;
    e.retry(id);
    expect((await e.wait(id)).state).toBe('succeeded');
    expect(fp.instances).toHaveLength(1);
  });

  const rehearsals = [
    {
      name: 'a failed rehearsal fails the run before the gate; the live plane is untouched',
      badFlag: false,
      report: { ok: false, error: 'the scratch plane did not start: m1: timed out' },
      want: { state: 'failed', error: 'the rehearsal failed: the scratch plane did not start: m1: timed out; the live plane was not changed' },
    },
    {
      name: 'a bad-flag rehearsal succeeds when the failing member was rolled back, and says so',
      badFlag: true,
      report: { ok: false, apply: scratchApply({ ok: false, components: [{ id: 'm1', kind: 'etcd', outcome: 'rolled-back', ms: 5000, detail: 'exited', rollback: 'm1 was rolled back and is healthy again' }] }) },
      want: { state: 'waiting', verdict: 'the failure was caught: m1 was rolled back and is healthy again (rehearsal 4.2 s; the live plane was not changed)' },
    },
    {
      name: 'a bad-flag rehearsal that rolled nothing back fails',
      badFlag: true,
      report: { ok: true, apply: scratchApply({}) },
      want: { state: 'failed', error: 'the bad flag was not caught and rolled back' },
    },
  ];
  for (const c of rehearsals) {
    it(c.name, async () => {
      const fp: FakePlane = { upgraded: new Set(), instances: [] };
      const e = engine(fp, c.report);
      const { id, steps } = await e.start('upgrade', params({ rehearseBadFlag: c.badFlag, rehearse: !c.badFlag }));
      expect(steps.find((s) => s.id === 'rehearse')!.command).toMatch(c.badFlag ? / --rehearse-bad-flag$/ : / --rehearse$/);
      const run = await eventually('rehearsal over', () => {
        const r = e.get(id);
        return r && (r.state === 'failed' || r.state === 'waiting') ? r : undefined;
      });
      expect(run.state).toBe(c.want.state);
      const step = run.steps.find((s) => s.id === 'rehearse')!;
      if (c.want.error) expect(step.error).toBe(c.want.error);
      if (c.want.verdict) expect(step.verdict).toBe(c.want.verdict);
      expect(fp.instances).toHaveLength(0);
    });
  }
});
