import { describe, expect, it } from 'vitest';
import { nextRun, parseCron } from '../../../main/backup/cron';

// local times, as cron reads them
const at = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0) => new Date(y, mo - 1, d, h, mi, s);
const fmt = (t: Date) =>
  `${t.getFullYear()}-${String(t.getMonth() + 1).padStart(2, '0')}-${String(t.getDate()).padStart(2, '0')} ${String(t.getHours()).padStart(2, '0')}:${String(t.getMinutes()).padStart(2, '0')}:${String(t.getSeconds()).padStart(2, '0')}`;

describe('cron schedules', () => {
  const cases = [
    { name: "k3s's default, every 12 h", expr: '0 */12 * * *', from: at(2026, 12, 3, 10, 41), want: ['2026-12-03 12:00:00', '2026-12-04 00:00:00', '2026-12-04 12:00:00'] },
    { name: 'every minute', expr: '* * * * *', from: at(2026, 12, 3, 10, 41, 30), want: ['2026-12-03 10:42:00', '2026-12-03 10:43:00'] },
    { name: 'lists and ranges', expr: '15,45 9-10 * * *', from: at(2026, 12, 3, 10, 41), want: ['2026-12-03 10:45:00', '2026-12-04 09:15:00', '2026-12-04 09:45:00'] },
    { name: 'a range with a step', expr: '0 8-18/5 * * *', from: at(2026, 12, 3, 9), want: ['2026-12-03 13:00:00', '2026-12-03 18:00:00', '2026-12-04 08:00:00'] },
    { name: 'weekday names, Sunday as 7', expr: '30 2 * * SAT,7', from: at(2026, 12, 3), want: ['2026-12-05 02:30:00', '2026-12-06 02:30:00', '2026-12-12 02:30:00'] },
    { name: 'month names and month ends', expr: '0 0 31 JAN-MAR *', from: at(2026, 1, 31, 1), want: ['2026-03-31 00:00:00', '2027-01-31 00:00:00'] },
    { name: 'both day fields: either matches', expr: '0 0 13 * FRI', from: at(2026, 11, 1), want: ['2026-11-06 00:00:00', '2026-11-13 00:00:00', '2026-11-20 00:00:00'] },
    { name: 'a leap day', expr: '0 0 29 2 *', from: at(2026, 3, 1), want: ['2028-02-29 00:00:00'] },
    { name: '@daily', expr: '@daily', from: at(2026, 12, 3, 10), want: ['2026-12-04 00:00:00'] },
    { name: '@hourly', expr: '@hourly', from: at(2026, 12, 3, 10, 0), want: ['2026-12-03 11:00:00', '2026-12-03 12:00:00'] },
    { name: '@every 2s', expr: '@every 2s', from: at(2026, 12, 3, 10, 0, 0), want: ['2026-12-03 10:00:02', '2026-12-03 10:00:04'] },
  ];
  it.each(cases)('$name: $expr', ({ expr, from, want }) => {
    const s = parseCron(expr);
    const got: string[] = [];
    let t = from;
    for (let i = 0; i < want.length; i++) got.push(fmt((t = nextRun(s, t))));
    expect(got).toEqual(want);
  });

  const bad = [
    { expr: '0 */12 * *', error: 'expected 5 fields' },
    { expr: '60 * * * *', error: 'minute "60": 60 is outside 0-59' },
    { expr: '* 24 * * *', error: 'hour "24": 24 is outside 0-23' },
    { expr: '*/0 * * * *', error: 'step "0" must be a positive integer' },
    { expr: '5-1 * * * *', error: 'range 5-1 runs backwards' },
    { expr: '* * * FOO *', error: '"FOO" is not a number' },
    { expr: '@every 10ms', error: '@every needs a Go duration of at least 1s' },
    { expr: '@every soon', error: '@every needs a Go duration' },
  ];
  it.each(bad)('refuses "$expr"', ({ expr, error }) => expect(() => parseCron(expr)).toThrow(error));
});
