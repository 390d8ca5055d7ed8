// The report a run leaves when it ends (succeeded, failed or cancelled):
// DIR/walkthroughs/<id>/report.md for people and report.json (the RunRecord)
// for tools. Each step appears with its title, why, the exact command, its
// output, its verdict or error and its timings, then the definition's
// figures. A failed run says at which step and why, so a cluster left half
// restored is never left without a report saying so.

import { join } from 'node:path';
import type { RunRecord, StepRecord } from './types';
import { writeFileAtomic } from './runStore';

const STATE_MARK: Record<StepRecord['state'], string> = {
  pending: '○ pending',
  running: '… running',
  paused: '‖ paused',
  succeeded: '✓ succeeded',
  failed: '✗ failed',
  cancelled: '✗ cancelled',
  skipped: '– skipped',
};

/** "1.2 s", "340 ms", "2 min 5 s": how long something took, between two ISO times. */
export function elapsed(from?: string, to?: string): string {
  if (!from || !to) return '';
  const ms = Date.parse(to) - Date.parse(from);
  if (!Number.isFinite(ms) || ms < 0) return '';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** A fence that no line of the output can close. */
function fence(lines: string[]): string {
  let f = '```';
  while (lines.some((l) => l.startsWith(f))) f += '`';
  return f;
}

export function renderMarkdown(run: RunRecord): string {
  const out: string[] = [];
  out.push(`# ${run.title}`, '');
  out.push(`- Run: \`${run.id}\` (${run.kind})`);
  out.push(`- Result: **${run.state}**${run.reason ? ` — ${run.reason}` : ''}`);
  out.push(`- Started: ${run.startedAt}`);
  if (run.endedAt) out.push(`- Ended: ${run.endedAt} (${elapsed(run.startedAt, run.endedAt)})`);
  const params = Object.entries(run.params);
  if (params.length) out.push(`- Parameters: ${params.map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(', ')}`);
  out.push('');
  if (run.figures && Object.keys(run.figures).length) {
    out.push('## Figures', '', '| Figure | Value |', '| --- | --- |');
    for (const [k, v] of Object.entries(run.figures)) out.push(`| ${k.replace(/\|/g, '\\|')} | ${String(v).replace(/\|/g, '\\|')} |`);
    out.push('');
  }
  out.push('## Steps', '');
  run.steps.forEach((s, i) => {
    out.push(`### ${i + 1}. ${s.title} — ${STATE_MARK[s.state]}`, '');
    out.push(s.why, '');
    out.push(`Command: \`${s.command.replace(/`/g, "'")}\``);
    if (s.gate === 'confirm') out.push('', 'Destructive: ran only after an explicit confirmation.');
    const took = elapsed(s.startedAt, s.endedAt);
    if (s.startedAt) out.push('', `Started ${s.startedAt}${took ? `, took ${took}` : ''}.`);
    if (s.output.length) {
      const f = fence(s.output);
      out.push('', f, ...s.output, f);
    }
    if (s.verdict) out.push('', `Verdict: ${s.verdict}`);
    if (s.error) out.push('', `Error: ${s.error}`);
    out.push('');
  });
  return out.join('\n');
}

/** Writes report.md and report.json into the run's folder; returns their paths. */
export function writeReport(runDir: string, run: RunRecord): { markdown: string; json: string } {
  const report = { markdown: join(runDir, 'report.md'), json: join(runDir, 'report.json') };
  const withReport: RunRecord = { ...run, report };
  writeFileAtomic(report.markdown, renderMarkdown(withReport));
  writeFileAtomic(report.json, `${JSON.stringify(withReport, null, 2)}\n`);
  return report;
}
