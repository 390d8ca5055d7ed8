// WAL append throughput with fdatasync, against the floor of a raw
// write+fdatasync loop on the same disk. Run: npx vitest bench --run bench/wal.bench.ts
//
// Measured here (ext4 on a shared 2-core VM, saves/s; see the table in
// main/etcd/wal/wal.ts's neighbour NOTES below):
//   raw writeSync+fdatasyncSync, 300 B into preallocated zeros    ~5 900
//   raw, appending (file grows: size metadata flushed each time)  ~4 100
//   raw, sparse ftruncate preallocation                           ~5 500
// Wal.save numbers are printed by this bench; the module's header in
// wal.ts records the last measurement.

import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, bench, describe } from 'vitest';
import { Wal } from '../main/etcd/wal';
import { EntryType, type Entry } from '../main/etcd/raft/types';

const root = fs.mkdtempSync(join(tmpdir(), 'pilothouse-wal-bench-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const DATA = new Uint8Array(256).fill(0x61);
const META = new TextEncoder().encode('bench');

function batch(from: number, n: number): Entry[] {
  return Array.from({ length: n }, (_, i) => ({ term: 1, index: from + i, type: EntryType.Normal, data: DATA }));
}

/** Bytes one Wal.save of n 256-byte entries + a hard state writes (frame 8 + type 1 + fixed 17 + data; state 33). */
const batchBytes = (n: number) => n * (8 + 1 + 17 + 256) + 8 + 1 + 24;

let dirSeq = 0;
async function walFor(): Promise<{ wal: Wal; next: () => number }> {
  const wal = await Wal.create(join(root, `w${dirSeq++}`), META);
  let index = 0;
  return { wal, next: () => ++index };
}

function rawFile(prealloc: boolean): { fd: number; pos: number } {
  const fd = fs.openSync(join(root, `raw${dirSeq++}`), 'w+');
  if (prealloc) {
    const z = Buffer.alloc(1 << 20);
    for (let i = 0; i < 64; i++) fs.writeSync(fd, z, 0, z.length, i << 20);
    fs.fsyncSync(fd);
  }
  return { fd, pos: 0 };
}

for (const n of [1, 64]) {
  describe(`${n} entr${n === 1 ? 'y' : 'ies'} of 256 bytes per save, synced`, () => {
    const opts = { time: 2000, warmupTime: 200 };
    let w: Awaited<ReturnType<typeof walFor>> | undefined;
    bench(
      'Wal.save',
      async () => {
        w ??= await walFor();
        const first = w.next();
        for (let i = 1; i < n; i++) w.next();
        await w.wal.save({ term: 1, vote: 1n, commit: first }, batch(first, n), true);
      },
      opts,
    );

    const size = batchBytes(n);
    const buf = Buffer.alloc(size, 0x61);
    for (const prealloc of [true, false]) {
      let raw: { fd: number; pos: number } | undefined;
      bench(
        `raw writeSync+fdatasyncSync (${prealloc ? 'preallocated' : 'appending'})`,
        () => {
          raw ??= rawFile(prealloc);
          fs.writeSync(raw.fd, buf, 0, size, raw.pos);
          fs.fdatasyncSync(raw.fd);
          raw.pos += size;
        },
        opts,
      );
    }
  });
}
