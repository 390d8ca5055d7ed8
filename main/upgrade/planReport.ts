// How `pilothouse upgrade plan` prints a plan: a component table in
// etcdctl's table style, the apply order, the skew and preflight verdicts,
// and the one line that says whether apply would go ahead; or the plan as JSON.

import type { UpgradePlan } from './plan';

function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = `+${widths.map((w) => '-'.repeat(w + 2)).join('+')}+`;
  const fmt = (cells: string[], centre: boolean) =>
    `|${cells.map((c, i) => (centre ? ` ${c.padStart(Math.floor((widths[i]! + c.length) / 2)).padEnd(widths[i]!)} ` : ` ${c.padEnd(widths[i]!)} `)).join('|')}|`;
  return [line, fmt(headers, true), line, ...rows.map((r) => fmt(r, false)), line].join('\n');
}

const build = (v?: string, c?: string) => (v ? `${v}${c ? ` (${c})` : ''}` : 'unknown');

export function formatPlanText(plan: UpgradePlan): string {
  const rows = plan.components.map((c) => [
    c.id,
    String(c.pid),
    build(c.current.version, c.current.commit),
    build(c.target.version, c.target.commit),
    c.flagChanges.length === 0 ? '-' : c.flagChanges.map((f) => `--${f.flag}: ${f.from ?? '(unset)'} → ${f.to}`).join(', '),
  ]);
  const mark = (ok: boolean) => (ok ? '[ok]  ' : '[fail]');
  const out = [
    `Upgrade plan for ${plan.dataDir}${plan.target ? ` → ${plan.target.version} (${plan.target.commit}) from ${plan.target.cliPath}` : ''}`,
    table(['COMPONENT', 'PID', 'CURRENT', 'TARGET', 'FLAG CHANGES'], rows),
    ...(plan.renewCerts ? ['Certificates: every leaf certificate renewed (new keys and serials, same CAs) before the first component; each component restarted to load them'] : []),
    `Order: ${plan.order.map((id) => (id === plan.leader ? `${id} (the leader, last of the members, after move-leader)` : id)).join(', ')}`,
    'Version skew:',
    ...plan.skew.map((s) => `  ${mark(s.ok)} ${s.message}`),
    'Preflight:',
    ...plan.preflight.map((c) => `  ${mark(c.ok)} ${c.name}: ${c.detail}`),
  ];
  if (plan.refusals.length === 0) out.push('pilothouse upgrade apply would go ahead.');
  else {
    const hard = plan.refusals.filter((r) => !plan.forceable.includes(r));
    out.push(`pilothouse upgrade apply would refuse: ${plan.refusals.join('; ')}${hard.length === 0 ? ' (--force goes on without it)' : ''}`);
  }
  return `${out.join('\n')}\n`;
}

export function formatPlanJson(plan: UpgradePlan): string {
  return `${JSON.stringify({ ...plan, canApply: plan.refusals.length === 0 }, null, 2)}\n`;
}
