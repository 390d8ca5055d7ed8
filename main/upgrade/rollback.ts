// `pilothouse upgrade rollback`: undoes an apply that left the cluster mixed
// (DIR/upgrade/apply.json), components in the reverse of the order they
// were upgraded — the controllers, the API server, then the members — each
// given its previous program and flags and waited for as apply waits. Once
// every component runs the target the upgrade is complete and the only way
// back is the backup taken before it (etcd's rule: a rollback is possible
// while the cluster is mixed), which is what it says then.

import type { ApplyPlane } from './applyPlane';
import { readApplyState, writeApplyState, isMixed } from './applyState';
import { waitBack } from './componentHealth';
import { electedHolders } from './leadership';
import { flagValue } from './planeSurvey';

export interface RollbackReport {
  ok: boolean;
  lines: string[];
}

export async function rollbackUpgrade(plane: ApplyPlane, timeoutMs: number, log: (l: string) => void): Promise<RollbackReport> {
  const lines: string[] = [];
  const say = (l: string) => {
    lines.push(l);
    log(l);
  };
  const state = readApplyState(plane.dataDir);
  if (!state) return { ok: false, lines: [`no upgrade was applied under ${plane.dataDir} (no upgrade/apply.json): nothing to roll back`] };
  if (state.outcome === 'complete' || (!isMixed(state) && state.components.some((c) => c.state === 'upgraded'))) {
    return {
      ok: false,
      lines: [
        `the upgrade of ${state.startedAt} is complete: the cluster is no longer mixed, so it is not rolled back component by component`,
        `restore the backup taken before it${state.backup ? ` (${state.backup})` : ''}: pilothouse backup restore FILE --data-dir ${plane.dataDir}`,
      ],
    };
  }
  const upgraded = state.components.filter((c) => c.state === 'upgraded').reverse();
  if (upgraded.length === 0) return { ok: true, lines: ['no component runs the target: nothing to roll back'] };
  const nodes = Number(flagValue(state.components.find((c) => c.kind === 'controllers')?.previous.args ?? [], 'nodes') ?? 3);
  for (const c of upgraded) {
    const holders = c.kind === 'controllers' ? await electedHolders(plane).catch(() => []) : [];
    say(`${c.id}: back to ${c.previous.program.command} ${[...c.previous.program.args, ...c.previous.args].join(' ')}`);
    await plane.control.replace(c.id, c.previous);
    const back = await waitBack(plane, c.id, c.kind, nodes, timeoutMs, undefined, holders);
    if (!back.ok) {
      say(`${c.id}: ${back.why}; stopping the rollback here (see ${plane.logFile(c.id)})`);
      writeApplyState(plane.dataDir, state);
      return { ok: false, lines };
    }
    c.state = 'rolled-back';
    writeApplyState(plane.dataDir, state);
    say(`${c.id}: ${back.detail}`);
  }
  state.outcome = 'rolled-back';
  state.endedAt = new Date().toISOString();
  writeApplyState(plane.dataDir, state);
  say('every upgraded component runs its previous program and flags again');
  return { ok: true, lines };
}
