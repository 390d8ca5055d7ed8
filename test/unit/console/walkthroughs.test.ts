import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BridgeEventName, BridgeEvents, EventSink, WalkthroughRun } from '../../../preload/contract';
import { WalkthroughService } from '../../../main/console/walkthroughs';
import { SnapshotStore } from '../../../main/console/snapshots';
import type { WalkthroughDefinition } from '../../../main/walkthrough/types';
import { eventually } from '../../support/waitFor';

let dir: string;
let service: WalkthroughService;
let pushed: WalkthroughRun[];
let ended: string[];

/** A drill-like definition: it records the file it was given. */
const fileDefinition: WalkthroughDefinition<{ file: string }> = {
  kind: 'drill',
  title: 'Drill a snapshot',
  steps: (p) => [
    { id: 'look', title: 'Look at the file', why: 'To test the service.', command: `pilothouse backup drill ${p.file}`, resumable: true, run: async (ctx) => { ctx.log(`file ${p.file}`); return 'restorable'; } },
    { id: 'wipe', title: 'Wipe', why: 'A gate.', command: 'rm -rf DIR', gate: 'confirm', resumable: false, run: async () => 'wiped' },
  ],
  figures: () => ({ rtoMs: 1234 }),
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ph-console-walkthroughs-'));
  mkdirSync(join(dir, 'snapshots'));
  writeFileSync(join(dir, 'snapshots', 'a.db'), 'not really a snapshot');
  pushed = [];
  ended = [];
  const events: EventSink = {
    emit<E extends BridgeEventName>(event: E, payload: BridgeEvents[E]) {
      if (event === 'walkthroughRun') pushed.push(payload as WalkthroughRun);
    },
  };
  const snapshots = new SnapshotStore({ dir: join(dir, 'snapshots'), source: () => undefined });
  service = new WalkthroughService({
    dir: join(dir, 'walkthroughs'),
    events,
    snapshotPath: (name) => snapshots.path(name),
    walkthroughs: [{ definition: fileDefinition, description: 'Rehearse a restore.', needsSnapshot: true, params: (r) => ({ file: r.snapshotPath! }) }],
    onEnded: (run) => ended.push(`${run.id}:${run.state}`),
  });
});
afterEach(() => {
  service.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe('WalkthroughService', () => {
  it('lists its kinds, starts a run on a snapshot by name, pushes every change, passes the gate and serves the report', async () => {
    const h = service.handlers;
    expect(await h.walkthroughKinds()).toEqual([{ kind: 'drill', title: 'Drill a snapshot', needsSnapshot: true, form: 'snapshot', description: 'Rehearse a restore.' }]);
    const run = await h.startWalkthrough({ kind: 'drill', snapshot: 'a.db' });
    expect(run.params).toEqual({ file: join(dir, 'snapshots', 'a.db') });
    await eventually('waiting at the gate', () => pushed.some((r) => r.id === run.id && r.state === 'waiting'));
    expect(() => h.walkthroughReport({ id: run.id })).toThrow(`run ${run.id} has no report yet: it is waiting`);
    await h.walkthroughAction({ id: run.id, action: 'confirm' });
    await eventually('succeeded', () => pushed.some((r) => r.id === run.id && r.state === 'succeeded'));
    expect(ended).toEqual([`${run.id}:succeeded`]);
    const report = await h.walkthroughReport({ id: run.id });
    expect(report.path).toBe(join(dir, 'walkthroughs', run.id, 'report.md'));
    expect(report.markdown).toContain(`file ${join(dir, 'snapshots', 'a.db')}`);
    expect(report.markdown).toContain('| rtoMs | 1234 |');
    expect((await h.listWalkthroughs()).map((r) => [r.id, r.state])).toEqual([[run.id, 'succeeded']]);
  });

  it('refuses what the renderer must not ask for', async () => {
    const h = service.handlers;
    await expect(h.startWalkthrough({ kind: 'nope' })).rejects.toThrow('no walkthrough "nope" in this console');
    await expect(h.startWalkthrough({ kind: 'drill' })).rejects.toThrow('Drill a snapshot needs a snapshot: pick one');
    await expect(h.startWalkthrough({ kind: 'drill', snapshot: '../../etc/passwd.db' })).rejects.toThrow(/invalid snapshot name/);
    await expect(h.startWalkthrough({ kind: 'drill', snapshot: 'missing.db' })).rejects.toThrow(/no such file or directory/);
    await expect(h.startWalkthrough({ kind: 'drill', snapshot: 'a.db', upgrade: { force: true } })).rejects.toThrow('Drill a snapshot takes no upgrade settings');
    expect(() => h.walkthroughAction({ id: 'x', action: 'explode' as never })).toThrow('unknown walkthrough action "explode"');
    expect(() => h.walkthroughAction({ id: '../x', action: 'pause' })).toThrow(/invalid walkthrough run id/);
  });
});

describe('WalkthroughService after the console was closed', () => {
  it('a fresh service on the same folder ends an interrupted non-resumable run failed with its reason', async () => {
    let release: (() => void) | undefined;
    const held: WalkthroughDefinition = {
      kind: 'restore', title: 'Restore', steps: () => [
        { id: 'stop', title: 'Stop the plane', why: 'w', command: 'kill', resumable: false, run: (ctx) => new Promise<string>((resolve, reject) => { release = () => resolve('stopped'); ctx.signal.addEventListener('abort', () => reject(new Error('aborted'))); }) },
      ],
    };
    const mk = () => new WalkthroughService({ dir: join(dir, 'walkthroughs'), snapshotPath: (n) => join(dir, 'snapshots', n), walkthroughs: [{ definition: held, description: '', needsSnapshot: false, params: () => ({}) }] });
    const first = mk();
    const run = await first.handlers.startWalkthrough({ kind: 'restore' });
    await eventually('step running', () => first.engine.get(run.id)?.steps[0]!.state === 'running');
    first.dispose();
    expect(release).toBeDefined();
    const second = mk();
    await second.start();
    const after = (await second.handlers.listWalkthroughs()).find((r) => r.id === run.id)!;
    expect(after.state).toBe('failed');
    expect(after.reason).toBe('interrupted at step 1 (Stop the plane): the app stopped while it was running');
    expect((await second.handlers.walkthroughReport({ id: run.id })).markdown).toContain('interrupted at step 1 (Stop the plane)');
    second.dispose();
  });

  it('hands an upgrade form to its walkthrough, whose params may be asynchronous, and says which form a kind needs', async () => {
    const seen: unknown[] = [];
    const upgrade = new WalkthroughService({
      dir: join(dir, 'walkthroughs-upgrade'),
      snapshotPath: (name) => join(dir, 'snapshots', name),
      walkthroughs: [{
        definition: { kind: 'upgrade', title: 'Upgrade', steps: () => [{ id: 'plan', title: 'Plan', why: 'A test.', command: 'pilothouse upgrade plan', resumable: true, run: async () => 'planned' }] },
        description: 'Upgrade.',
        needsSnapshot: false,
        form: 'upgrade',
        params: async (r) => {
          seen.push(r.upgrade);
          if ((r.upgrade as { timeout?: string } | undefined)?.timeout === 'soon') throw new Error('upgrade.timeout: time: invalid duration "soon"');
          return { set: (r.upgrade as { set: string[] }).set };
        },
      }],
    });
    try {
      const h = upgrade.handlers;
      expect((await h.walkthroughKinds()).map((k) => k.form)).toEqual(['upgrade']);
      const run = await h.startWalkthrough({ kind: 'upgrade', upgrade: { set: ['etcd.quota-backend-bytes=4294967296'] } });
      expect(run.params).toEqual({ set: ['etcd.quota-backend-bytes=4294967296'] });
      await expect(h.startWalkthrough({ kind: 'upgrade', upgrade: { timeout: 'soon' } })).rejects.toThrow('upgrade.timeout: time: invalid duration "soon"');
      expect(seen).toEqual([{ set: ['etcd.quota-backend-bytes=4294967296'] }, { timeout: 'soon' }]);
    } finally {
      upgrade.dispose();
    }
  });
});
