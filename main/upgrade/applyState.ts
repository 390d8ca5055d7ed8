// DIR/upgrade/apply.json: what an apply changed, component by component —
// the command line each ran before and the one it was given — so that a
// cluster left mixed (a component rolled back, the run stopped, the host
// gone) can be rolled back whole (`pilothouse upgrade rollback`). Written
// atomically after every change, mode 0600.
//
// etcd's rule holds: rolling back is possible while the cluster is mixed.
// Once every component runs the target the upgrade is complete, and going
// back is a restore of the backup taken before it.

import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandLine } from '../controlplane/componentOverrides';
import type { ComponentKind } from './build';

export type ComponentProgress = 'pending' | 'upgraded' | 'unchanged' | 'rolled-back' | 'failed';

export interface AppliedComponent {
  id: string;
  kind: ComponentKind;
  state: ComponentProgress;
  previous: CommandLine;
  target: CommandLine;
}

export interface ApplyState {
  runId: string;
  startedAt: string;
  endedAt?: string;
  /** 'complete': every component runs its target; 'stopped': the run ended early (mixed); 'rolled-back': undone. */
  outcome: 'running' | 'complete' | 'stopped' | 'rolled-back';
  target?: { version: string; commit: string; cliPath: string };
  settings: string[];
  /** The newest verified backup when the run began (what a rollback after completion restores). */
  backup?: string;
  /** When the run renewed the certificates (--renew-certs): once, before the first component. */
  certsRenewed?: string;
  components: AppliedComponent[];
}

export function applyStatePath(dataDir: string): string {
  return join(dataDir, 'upgrade', 'apply.json');
}

export function readApplyState(dataDir: string): ApplyState | undefined {
  try {
    return JSON.parse(readFileSync(applyStatePath(dataDir), 'utf8')) as ApplyState;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

export function writeApplyState(dataDir: string, state: ApplyState): void {
  const file = applyStatePath(dataDir);
  mkdirSync(join(dataDir, 'upgrade'), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}

/** True while some components run their target and others do not. */
export function isMixed(state: ApplyState): boolean {
  const upgraded = state.components.filter((c) => c.state === 'upgraded').length;
  return upgraded > 0 && upgraded < state.components.filter((c) => c.state !== 'unchanged').length;
}
