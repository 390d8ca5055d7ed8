// What `pilothouse upgrade apply` prints at the end: each component's
// outcome, the nodes, the storage migration, the availability measured, and
// what to do next; or, for --rehearse, the same for the copy.

import { formatAvailability } from './availabilityProbe';
import type { ApplyReport } from './apply';
import { describeSeen } from './apply';
import type { RehearsalReport } from './rehearsal';
import { formatCounts } from './storageMigration';

export function formatApplyText(r: ApplyReport): string {
  const out: string[] = [];
  if (r.refused) {
    out.push('[upgrade/apply] FATAL: the preflight refuses; nothing was changed:');
    for (const x of r.refused) out.push(`  - ${x}`);
    for (const n of r.next) out.push(n);
    return `${out.join('\n')}\n`;
  }
  for (const f of r.forced) out.push(`[upgrade/apply] forced past: ${f}`);
  out.push('COMPONENT     OUTCOME       TIME     DETAIL');
  for (const c of r.components) out.push(`${c.id.padEnd(13)} ${c.outcome.padEnd(13)} ${`${(c.ms / 1000).toFixed(1)} s`.padEnd(8)} ${c.detail}`);
  for (const c of r.components.filter((x) => x.seen)) {
    out.push(`[upgrade/apply] ${c.id} did not come back: what it showed:`);
    for (const l of describeSeen(c.seen!)) out.push(`  ${l}`);
    if (c.rollback) out.push(`[upgrade/apply] ${c.rollback}`);
  }
  if (r.nodes) for (const l of r.nodes.lines) out.push(`[upgrade/nodes] ${l}`);
  for (const m of r.migrations ?? []) {
    out.push(`[upgrade/migrate] ${m.resource}${m.group ? `.${m.group}` : ''}: ${m.ok ? 'migrated' : 'FAILED'} (${m.detail}); before: ${formatCounts(m.before)}; after: ${formatCounts(m.after)}`);
  }
  if (r.availability) for (const l of formatAvailability(r.availability)) out.push(`[upgrade/availability] ${l}`);
  out.push(`[upgrade/apply] ${r.ok ? 'SUCCESS' : 'STOPPED'} after ${(r.durationMs / 1000).toFixed(1)} s`);
  for (const n of r.next) out.push(n);
  return `${out.join('\n')}\n`;
}

export function formatRehearsalText(r: RehearsalReport, liveCommand: string): string {
  const out: string[] = [`[upgrade/rehearse] on a copy of ${r.backup || '(no backup)'}${r.scratch ? ` in ${r.scratch.dir}` : ''}`];
  if (r.apply) out.push(formatApplyText(r.apply).trimEnd());
  if (r.error) out.push(`[upgrade/rehearse] FAILED: ${r.error}`);
  out.push(`[upgrade/rehearse] ${r.ok ? 'the rehearsal succeeded' : 'the rehearsal failed'} in ${(r.durationMs / 1000).toFixed(1)} s; the live plane was not changed`);
  if (r.ok) out.push(`run it on the live plane: ${liveCommand}`);
  return `${out.join('\n')}\n`;
}
