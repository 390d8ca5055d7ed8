// Backup schedules as k3s takes them (--etcd-snapshot-schedule-cron, parsed by
// robfig/cron): the standard 5 fields "minute hour day-of-month month
// day-of-week" in local time, with `*`, lists `a,b`, ranges `a-b`, steps `*/n`
// and `a-b/n`, month and weekday names (JAN, MON), 7 as Sunday, and the
// descriptors @yearly @annually @monthly @weekly @daily @midnight @hourly and
// `@every <Go duration>` (the only way to ask for less than a minute).
// As in cron, when both day fields are restricted a day matching either runs.

import { parseGoDurationMs } from '../common/goDuration';

export type Schedule = { kind: 'fields'; minute: Set<number>; hour: Set<number>; dom: Set<number>; month: Set<number>; dow: Set<number>; domStar: boolean; dowStar: boolean } | { kind: 'every'; ms: number };

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

const DESCRIPTORS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  names?: string[];
  /** Offset of names[0] (months start at 1). */
  nameBase?: number;
}

const FIELDS: FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTHS, nameBase: 1 },
  { name: 'day of week', min: 0, max: 7, names: DAYS, nameBase: 0 },
];

export function parseCron(expr: string): Schedule {
  const text = expr.trim();
  if (text.startsWith('@every')) {
    const d = text.slice('@every'.length).trim();
    const ms = parseGoDurationMs(d);
    if (ms === undefined || ms < 1000) throw new Error(`invalid schedule "${expr}": @every needs a Go duration of at least 1s (e.g. "@every 30s")`);
    return { kind: 'every', ms };
  }
  const fields = (DESCRIPTORS[text.toLowerCase()] ?? text).split(/\s+/);
  if (fields.length !== 5) throw new Error(`invalid schedule "${expr}": expected 5 fields (minute hour day-of-month month day-of-week), got ${fields.length}`);
  const sets = fields.map((f, i) => parseField(f, FIELDS[i]!, expr));
  const dow = new Set([...sets[4]!].map((d) => d % 7));
  return { kind: 'fields', minute: sets[0]!, hour: sets[1]!, dom: sets[2]!, month: sets[3]!, dow, domStar: fields[2]!.startsWith('*'), dowStar: fields[4]!.startsWith('*') };
}

function parseField(field: string, spec: FieldSpec, expr: string): Set<number> {
  const out = new Set<number>();
  const bad = (why: string) => new Error(`invalid schedule "${expr}": ${spec.name} "${field}": ${why}`);
  const value = (s: string): number => {
    const named = spec.names?.indexOf(s.toLowerCase()) ?? -1;
    if (named >= 0) return named + (spec.nameBase ?? 0);
    if (!/^\d+$/.test(s)) throw bad(`"${s}" is not a number`);
    const n = Number(s);
    if (n < spec.min || n > spec.max) throw bad(`${n} is outside ${spec.min}-${spec.max}`);
    return n;
  };
  for (const part of field.split(',')) {
    const [range, stepText, extra] = part.split('/');
    if (extra !== undefined || range === undefined || range === '') throw bad('malformed');
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isInteger(step) || step < 1) throw bad(`step "${stepText}" must be a positive integer`);
    let lo: number;
    let hi: number;
    if (range === '*') [lo, hi] = [spec.min, spec.max];
    else if (range.includes('-')) {
      const [a, b] = range.split('-');
      lo = value(a ?? '');
      hi = value(b ?? '');
      if (lo > hi) throw bad(`range ${lo}-${hi} runs backwards`);
    } else {
      lo = value(range);
      hi = stepText === undefined ? lo : spec.max; // "5/15": from 5 on, as robfig/cron reads it
    }
    for (let v = lo; v <= hi; v += step) out.add(v);
  }
  return out;
}

/** The first time strictly after `after` that the schedule fires (local time; whole minutes for field schedules). */
export function nextRun(s: Schedule, after: Date): Date {
  if (s.kind === 'every') return new Date(after.getTime() + s.ms);
  const t = new Date(after.getTime());
  t.setSeconds(0, 0);
  t.setMinutes(t.getMinutes() + 1);
  // Field by field from the largest, as robfig/cron's Next: a field that does
  // not match moves to the start of its next value and re-checks the larger ones.
  const limit = t.getFullYear() + 5;
  for (;;) {
    if (t.getFullYear() > limit) throw new Error('schedule never fires (no matching date within 5 years)');
    if (!s.month.has(t.getMonth() + 1)) {
      t.setMonth(t.getMonth() + 1, 1);
      t.setHours(0, 0, 0, 0);
      continue;
    }
    if (!dayMatches(s, t)) {
      t.setDate(t.getDate() + 1);
      t.setHours(0, 0, 0, 0);
      continue;
    }
    if (!s.hour.has(t.getHours())) {
      t.setHours(t.getHours() + 1, 0, 0, 0);
      continue;
    }
    if (!s.minute.has(t.getMinutes())) {
      t.setMinutes(t.getMinutes() + 1, 0, 0);
      continue;
    }
    return t;
  }
}

function dayMatches(s: Extract<Schedule, { kind: 'fields' }>, t: Date): boolean {
  const dom = s.dom.has(t.getDate());
  const dow = s.dow.has(t.getDay());
  if (s.domStar || s.dowStar) return dom && dow;
  return dom || dow;
}
