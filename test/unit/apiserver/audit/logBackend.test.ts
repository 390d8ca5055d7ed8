import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backupName, backupTime, openAuditLog } from '../../../../main/apiserver/audit/logBackend';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'audit-log-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Exactly 100 bytes with its newline. */
const line = (i: number) => `${JSON.stringify({ n: i, pad: 'x'.repeat(99 - JSON.stringify({ n: i, pad: '' }).length) })}\n`;

describe('audit log file', () => {
  it('appends lines in order and writes everything out on close', async () => {
    const path = join(dir, 'audit.log');
    writeFileSync(path, 'old\n', { mode: 0o644 });
    const w = openAuditLog({ path });
    for (let i = 0; i < 500; i++) w.write(line(i));
    await w.close();
    const got = readFileSync(path, 'utf8').split('\n');
    expect(got[0]).toBe('old');
    expect((statSync(path).mode & 0o777).toString(8), 'a file that existed 0644 is narrowed').toBe('600');
    expect(got.slice(1, -1).map((l) => JSON.parse(l).n)).toEqual([...Array(500).keys()]);
  });

  it('writes the lines of one event-loop turn at the end of that turn, without close or flush', async () => {
    const path = join(dir, 'audit.log');
    const w = openAuditLog({ path });
    for (let i = 0; i < 3; i++) w.write(line(i));
    expect(existsSync(path) ? readFileSync(path, 'utf8') : '').toBe('');
    await new Promise((resolve) => setImmediate(resolve));
    expect(readFileSync(path, 'utf8')).toBe(line(0) + line(1) + line(2));
    w.write(line(3));
    await w.flush();
    expect(readFileSync(path, 'utf8').split('\n')).toHaveLength(5);
    await w.close();
    w.write(line(4));
    expect(w.dropped).toBe(1);
  });

  it('a log that cannot be opened drops and counts the lines, saying so once per turn', async () => {
    const blocker = join(dir, 'not-a-dir');
    writeFileSync(blocker, '');
    const said: string[] = [];
    const w = openAuditLog({ path: join(blocker, 'audit.log'), log: (l) => said.push(l) });
    for (let i = 0; i < 5; i++) w.write(line(i));
    await w.flush();
    expect(w.dropped).toBe(5);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^audit log: open failed: /);
    await w.close();
  });

  it('rotates before a file would pass maxSize, keeps maxBackups newest backups, names them as lumberjack', async () => {
    const path = join(dir, 'audit.log');
    let t = Date.parse('2026-11-30T22:00:00.000Z');
    const w = openAuditLog({ path, maxSizeBytes: 1000, maxBackups: 2, now: () => new Date((t += 1000)) });
    for (let i = 0; i < 45; i++) w.write(line(i));
    await w.close();
    const files = readdirSync(dir).sort();
    expect(files).toEqual(['audit-2026-11-30T22-00-03.000.log', 'audit-2026-11-30T22-00-04.000.log', 'audit.log']);
    const sizes = files.map((f) => readFileSync(join(dir, f), 'utf8').length);
    expect(sizes).toEqual([1000, 1000, 500]);
    // The newest backup holds lines 30..39, the live file 40..44.
    expect(readFileSync(join(dir, files[1]!), 'utf8').split('\n')[0]).toContain('"n":30');
    expect(readFileSync(path, 'utf8').split('\n')[0]).toContain('"n":40');
  });

  it('removes backups older than maxAge days', async () => {
    const path = join(dir, 'audit.log');
    const old = backupName(path, new Date('2026-11-20T00:00:00.000Z'));
    writeFileSync(old, 'x');
    const w = openAuditLog({ path, maxSizeBytes: 150, maxAgeDays: 3, now: () => new Date('2026-11-30T22:00:00.000Z') });
    w.write(line(1));
    w.write(line(2));
    await w.close();
    expect(existsSync(old)).toBe(false);
    expect(readdirSync(dir).sort()).toEqual(['audit-2026-11-30T22-00-00.000.log', 'audit.log']);
  });

  it('drops a line longer than the file limit', async () => {
    const path = join(dir, 'audit.log');
    const logged: string[] = [];
    const w = openAuditLog({ path, maxSizeBytes: 50, log: (l) => logged.push(l) });
    w.write(line(1));
    w.write('short\n');
    await w.close();
    expect(readFileSync(path, 'utf8')).toBe('short\n');
    expect(w.dropped).toBe(1);
    expect(logged[0]).toBe('audit log: write length 100 exceeds maximum file size 50');
  });

  it('backup names round-trip', () => {
    const t = new Date('2026-01-02T03:04:05.678Z');
    const n = backupName('/x/audit.log', t);
    expect(n).toBe('/x/audit-2026-01-02T03-04-05.678.log');
    expect(backupTime('/x/audit.log', 'audit-2026-01-02T03-04-05.678.log')?.getTime()).toBe(t.getTime());
    expect(backupTime('/x/audit.log', 'other.log')).toBeUndefined();
  });
});
