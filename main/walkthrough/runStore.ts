// Where walkthrough runs live on disk: DIR/walkthroughs/<id>/run.json, one
// file per run, rewritten atomically (temporary file, fsync, rename) after
// every state change, so a run survives the app being closed at any moment
// and a reader never sees half a file. The folders are 0700 and the files
// 0600: a run's output names snapshot files, members and clusters.
//
// run.json holds the RunRecord the console shows plus what the engine needs to
// carry a run across a restart: the run-wide step state, the gates already
// passed and the process running it (a CLI run and the console share DIR, and
// neither may take over a run the other is still executing).

import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { RunRecord } from './types';

export interface StoredRun {
  run: RunRecord;
  /** StepContext.state: the parameters and what earlier steps found. */
  state: Record<string, unknown>;
  /** Ids of the steps whose confirm gate was passed. */
  confirmed: string[];
  /** The process executing the run while it is running, waiting or paused. */
  pid?: number;
}

const ID_PATTERN = /^[a-z0-9][a-z0-9-]*$/;

/** A run id from the renderer or the command line must name one folder under DIR/walkthroughs. */
export function checkRunId(id: string): void {
  if (!ID_PATTERN.test(id)) throw new Error(`invalid walkthrough run id ${JSON.stringify(id)}`);
}

/** Writes a file so that readers see the old content or the new, never a mix; owner-only. */
export function writeFileAtomic(path: string, data: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

export class RunStore {
  constructor(readonly dir: string) {}

  runDir(id: string): string {
    checkRunId(id);
    return join(this.dir, id);
  }

  save(stored: StoredRun): void {
    const dir = this.runDir(stored.run.id);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileAtomic(join(dir, 'run.json'), `${JSON.stringify(stored, null, 2)}\n`);
  }

  load(id: string): StoredRun | undefined {
    const path = join(this.runDir(id), 'run.json');
    if (!existsSync(path)) return undefined;
    try {
      const parsed = JSON.parse(readFileSync(path, 'utf8')) as StoredRun;
      if (!parsed.run || parsed.run.id !== id || !Array.isArray(parsed.run.steps)) return undefined;
      return { run: parsed.run, state: parsed.state ?? {}, confirmed: parsed.confirmed ?? [], ...(parsed.pid ? { pid: parsed.pid } : {}) };
    } catch {
      return undefined; // not ours or damaged by hand: the engine lists what it can read
    }
  }

  /** Every readable run, oldest first (ids begin with their start time). */
  loadAll(): StoredRun[] {
    if (!existsSync(this.dir)) return [];
    const out: StoredRun[] = [];
    for (const name of readdirSync(this.dir).sort()) {
      if (!ID_PATTERN.test(name)) continue;
      const s = this.load(name);
      if (s) out.push(s);
    }
    return out;
  }
}
