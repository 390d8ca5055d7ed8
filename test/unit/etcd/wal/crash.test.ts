import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { build } from 'rolldown';
import { Wal } from '../../../../main/etcd/wal';
import { payloadFor } from './crashWriter.fixture';
import { tempDirs } from './helpers';

// A real crash: a child process appends synced batches and reports each
// acknowledged index; we SIGKILL it at a random moment and check that every
// acknowledged entry is in the log when it is reopened. Rounds reuse the same
// log, so each child also proves that the previous crash's tail was repaired
// and appending continued. Small segments make kills land during cuts too.
//
// How the child runs TypeScript: Node 20 cannot load .ts, so the fixture is
// bundled once with rolldown (shipped with vite) into a plain .mjs in a temp
// dir. SIGKILL loses the process, not the page cache; torn writes from power
// loss are simulated byte-wise in repair.test.ts.

const dirs = tempDirs();
let script = '';
const children = new Set<ChildProcess>();

beforeAll(async () => {
  const out = dirs.make();
  script = join(out, 'crashWriter.mjs');
  await build({
    input: join(import.meta.dirname, 'crashWriter.fixture.ts'),
    platform: 'node',
    write: true,
    logLevel: 'silent',
    output: { file: script, format: 'esm' },
  });
});
afterEach(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});
afterAll(() => dirs.cleanup());

const SEG = 32 * 1024;

interface Round {
  ready: number;
  acked: number;
  stderr: string;
}

/** Runs the writer until `killAfterMs` after it is ready, then SIGKILLs it. */
function crashRound(dir: string, seed: number, killAfterMs: number): Promise<Round> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, dir, String(SEG), String(seed)], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    const round: Round = { ready: -1, acked: 0, stderr: '' };
    let pending = '';
    let timer: NodeJS.Timeout | undefined;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        const [word, n] = line.split(' ');
        if (word === 'ack') round.acked = Math.max(round.acked, Number(n));
        if (word === 'ready') {
          round.ready = Number(n);
          timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
        }
      }
    });
    child.stderr.setEncoding('utf8').on('data', (s: string) => (round.stderr += s));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      if (signal !== 'SIGKILL') reject(new Error(`writer exited ${code}: ${round.stderr}`));
      else resolve(round);
    });
  });
}

describe('crash recovery', () => {
  it('keeps every acknowledged entry across repeated SIGKILLs', { timeout: 60_000 }, async () => {
    const dir = join(dirs.make(), 'wal');
    const seed = (Date.now() % 100_000) + 1;
    let acked = 0;
    for (let r = 0; r < 5; r++) {
      const killAfter = 20 + ((seed * (r + 3) * 7919) % 250);
      const round = await crashRound(dir, seed + r, killAfter);
      // The child reopened the log itself: what it found covers everything acknowledged before.
      expect(round.ready, `round ${r}, seed ${seed}`).toBeGreaterThanOrEqual(acked);
      acked = Math.max(acked, round.acked);
    }
    expect(acked).toBeGreaterThan(0);

    const got = await Wal.open(dir, { index: 0, term: 0 }, { segmentBytes: SEG });
    await got.wal.close();
    const last = got.entries.at(-1)?.index ?? 0;
    expect(last, `seed ${seed}`).toBeGreaterThanOrEqual(acked);
    got.entries.forEach((e, i) => {
      expect(e.index).toBe(i + 1);
      expect(Buffer.from(e.data).equals(Buffer.from(payloadFor(e.index)))).toBe(true);
    });
  });
});
