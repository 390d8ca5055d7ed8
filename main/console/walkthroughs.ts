// The console's walkthroughs: one WalkthroughEngine over DIR/walkthroughs
// (the folder `pilothouse backup ...` uses too, so CLI runs show in the
// history), the bridge calls that start and steer runs, and every run change
// pushed to the renderer on the walkthroughRun stream. At start it takes over
// the runs a closed console left behind (engine.recover()).
//
// The renderer names a snapshot by its file name only; the service resolves
// it under DIR/snapshots, so a page can never point a restore at another path.

import { existsSync, readFileSync } from 'node:fs';
import type { BridgeHandlers, EventSink, WalkthroughKind, WalkthroughReport } from '../../preload/contract';
import { WalkthroughEngine } from '../walkthrough/engine';
import type { RunRecord, WalkthroughDefinition } from '../walkthrough/types';

export interface ConsoleWalkthrough {
  definition: WalkthroughDefinition<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- each definition types its own params
  description: string;
  needsSnapshot: boolean;
  /** The start form beyond a snapshot (the upgrade's target and flags). */
  form?: 'upgrade';
  /** The run's parameters; snapshotPath is the chosen file, resolved and checked to exist; upgrade the form as the page sent it (unchecked). */
  params(req: { snapshotPath?: string; upgrade?: unknown }): object | Promise<object>;
}

export interface WalkthroughServiceOptions {
  /** DIR/walkthroughs */
  dir: string;
  events?: EventSink;
  walkthroughs: ConsoleWalkthrough[];
  /** DIR/snapshots/<name>, refusing names that are not plain snapshot files. */
  snapshotPath(name: string): string;
  /** A run ended (the snapshot list may have changed). */
  onEnded?(run: RunRecord): void;
}

type WalkthroughHandlers = Pick<BridgeHandlers, 'walkthroughKinds' | 'listWalkthroughs' | 'startWalkthrough' | 'walkthroughAction' | 'walkthroughReport'>;

const ENDED = new Set(['succeeded', 'failed', 'cancelled']);

export class WalkthroughService {
  readonly engine: WalkthroughEngine;
  private readonly byKind = new Map<string, ConsoleWalkthrough>();
  private readonly lastState = new Map<string, string>();

  constructor(private readonly o: WalkthroughServiceOptions) {
    for (const w of o.walkthroughs) this.byKind.set(w.definition.kind, w);
    this.engine = new WalkthroughEngine({
      dir: o.dir,
      definitions: o.walkthroughs.map((w) => w.definition),
      onChange: (run) => this.changed(run),
    });
  }

  /** Takes over what a closed console left running (resumes, or ends it failed with the reason). */
  start(): Promise<void> {
    return this.engine.recover();
  }

  readonly handlers: WalkthroughHandlers = {
    walkthroughKinds: (): WalkthroughKind[] =>
      [...this.byKind.values()].map((w) => ({
        kind: w.definition.kind, title: w.definition.title, needsSnapshot: w.needsSnapshot, form: w.form ?? (w.needsSnapshot ? 'snapshot' : 'none'), description: w.description,
      })),
    listWalkthroughs: () => this.engine.list(),
    startWalkthrough: async (req) => {
      const w = this.byKind.get(req?.kind);
      if (!w) throw new Error(`no walkthrough ${JSON.stringify(req?.kind)} in this console`);
      let snapshotPath: string | undefined;
      if (w.needsSnapshot) {
        if (!req.snapshot) throw new Error(`${w.definition.title} needs a snapshot: pick one`);
        snapshotPath = this.o.snapshotPath(req.snapshot);
        if (!existsSync(snapshotPath)) throw new Error(`stat ${snapshotPath}: no such file or directory`);
      }
      if (req.upgrade !== undefined && w.form !== 'upgrade') throw new Error(`${w.definition.title} takes no upgrade settings`);
      const params = await w.params({ ...(snapshotPath && { snapshotPath }), ...(w.form === 'upgrade' && { upgrade: req.upgrade }) });
      return this.engine.start(w.definition.kind, { ...params });
    },
    walkthroughAction: (req) => {
      const id = String(req?.id);
      switch (req?.action) {
        case 'pause': return this.engine.pause(id);
        case 'resume': return this.engine.resume(id);
        case 'cancel': return this.engine.cancel(id);
        case 'retry': return this.engine.retry(id);
        case 'confirm': return this.engine.confirm(id);
        default: throw new Error(`unknown walkthrough action ${JSON.stringify(req?.action)}`);
      }
    },
    walkthroughReport: (req): WalkthroughReport => {
      const run = this.engine.get(String(req?.id));
      if (!run) throw new Error(`no walkthrough run ${req?.id}`);
      if (!run.report || !existsSync(run.report.markdown)) throw new Error(`run ${run.id} has no report yet: it is ${run.state}`);
      return { id: run.id, path: run.report.markdown, markdown: readFileSync(run.report.markdown, 'utf8') };
    },
  };

  /** Aborts running steps; their runs stay recorded as running for the next start to take over. */
  dispose(): void {
    this.engine.dispose();
  }

  private changed(run: RunRecord): void {
    this.o.events?.emit('walkthroughRun', run);
    const before = this.lastState.get(run.id);
    this.lastState.set(run.id, run.state);
    if (before !== run.state && ENDED.has(run.state)) this.o.onEnded?.(run);
  }
}
