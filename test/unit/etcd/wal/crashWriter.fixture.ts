// Child process for crash.test.ts: appends batches to a WAL with sync and
// prints `ack <last index>` after each save resolves — the point at which a
// member would acknowledge. The parent SIGKILLs it at a random moment.
// Usage: node crashWriter.mjs <wal dir> <segment bytes> <seed>

import { Wal } from '../../../../main/etcd/wal';
import { EntryType, type Entry } from '../../../../main/etcd/raft/types';

/** The payload of entry i, so the parent can verify contents without being told them. */
export function payloadFor(index: number): Uint8Array {
  const size = 10 + ((index * 7919) % 390);
  const data = new Uint8Array(size);
  for (let j = 0; j < size; j++) data[j] = (index + j * 13) & 0xff;
  return data;
}

async function main(): Promise<void> {
  const [dir, segArg, seedArg] = process.argv.slice(2);
  const opts = { segmentBytes: Number(segArg) };
  let seed = Number(seedArg) >>> 0 || 1;
  const rand = (n: number) => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed % n;
  };
  let wal: Wal;
  let last = 0;
  let term = 1;
  if (Wal.exists(dir)) {
    const got = await Wal.open(dir, { index: 0, term: 0 }, opts);
    wal = got.wal;
    last = got.entries.at(-1)?.index ?? 0;
    term = got.hardState.term + 1;
  } else {
    wal = await Wal.create(dir, new TextEncoder().encode('crash-test'), opts);
  }
  process.stdout.write(`ready ${last}\n`);
  // Bounded: the parent kills us long before this runs out.
  for (let round = 0; round < 1_000_000; round++) {
    const n = 1 + rand(16);
    const batch: Entry[] = [];
    for (let i = 1; i <= n; i++) batch.push({ term, index: last + i, type: EntryType.Normal, data: payloadFor(last + i) });
    await wal.save({ term, vote: 1n, commit: last }, batch, true);
    last += n;
    process.stdout.write(`ack ${last}\n`);
  }
}

if (process.argv[1]?.endsWith('crashWriter.mjs')) {
  main().catch((err) => {
    process.stderr.write(`${(err as Error).stack}\n`);
    process.exit(2);
  });
}
