// Snapshot files (`<data-dir>/member/snap`), after etcd's snap package: one
// file per Raft snapshot, named `%016x-%016x.snap` = `<term>-<index>` so that
// name order is age order.
//
// File layout (little-endian; u64 as in record.ts):
//
//     u32 crc        CRC-32C of everything after it
//     u64 index, u64 term
//     u32 n, n × u64 voters
//     u32 m, m × u64 learners
//     data…          the state-machine image, opaque here
//
// Saving is atomic (write `<name>.tmp`, fsync, rename, fsync the directory),
// unlike etcd which writes in place and relies on the crc: a crash leaves
// either the old set of files or the new one, plus an ignored .tmp.

import * as fs from 'node:fs';
import { join } from 'node:path';
import { crc32c } from './crc32c';
import { readU64, writeU64 } from './record';
import { closeFd, fsyncDir, fsyncFd, openFd, writeAllAt } from './segment';
import type { MemberId, Snapshot } from '../raft/types';

const SNAP_RE = /^[0-9a-f]{16}-[0-9a-f]{16}\.snap$/;

const hex16 = (n: number) => n.toString(16).padStart(16, '0');

export function snapshotFileName(term: number, index: number): string {
  return `${hex16(term)}-${hex16(index)}.snap`;
}

export function encodeSnapshotFile(snap: Snapshot): Buffer {
  const { index, term, confState } = snap.metadata;
  const { voters, learners } = confState;
  const head = 4 + 16 + 4 + voters.length * 8 + 4 + learners.length * 8;
  const buf = Buffer.allocUnsafe(head + snap.data.length);
  let at = 4;
  writeU64(buf, index, at);
  writeU64(buf, term, at + 8);
  at += 16;
  for (const ids of [voters, learners]) {
    buf.writeUInt32LE(ids.length, at);
    at += 4;
    for (const id of ids) {
      buf.writeBigUInt64LE(BigInt.asUintN(64, id), at);
      at += 8;
    }
  }
  buf.set(snap.data, at);
  buf.writeUInt32LE(crc32c(0, buf, 4), 0);
  return buf;
}

/** Throws on a short or corrupt file. */
export function decodeSnapshotFile(buf: Buffer): Snapshot {
  const need = (n: number, at: number) => {
    if (at + n > buf.length) throw new Error(`truncated at offset ${at}`);
  };
  need(4 + 16 + 4, 0);
  if (crc32c(0, buf, 4) !== buf.readUInt32LE(0)) throw new Error('crc mismatch');
  const index = readU64(buf, 4);
  const term = readU64(buf, 12);
  let at = 20;
  const ids = (): MemberId[] => {
    need(4, at);
    const n = buf.readUInt32LE(at);
    at += 4;
    need(n * 8, at);
    const out: MemberId[] = [];
    for (let i = 0; i < n; i++, at += 8) out.push(buf.readBigUInt64LE(at));
    return out;
  };
  const voters = ids();
  const learners = ids();
  return {
    metadata: { index, term, confState: { voters, learners } },
    data: new Uint8Array(buf.subarray(at)),
  };
}

export class Snapshotter {
  /** Temp files of saves in progress, which purge must leave alone. */
  private readonly inFlight = new Set<string>();

  constructor(private readonly dir: string) {}

  async save(snap: Snapshot): Promise<void> {
    fs.mkdirSync(this.dir, { recursive: true });
    const name = snapshotFileName(snap.metadata.term, snap.metadata.index);
    const tmp = join(this.dir, `${name}.tmp`);
    this.inFlight.add(tmp);
    try {
      const fd = await openFd(tmp, 'w');
      try {
        await writeAllAt(fd, encodeSnapshotFile(snap), 0);
        await fsyncFd(fd);
      } finally {
        await closeFd(fd);
      }
      fs.renameSync(tmp, join(this.dir, name));
      await fsyncDir(this.dir);
    } catch (err) {
      fs.rmSync(tmp, { force: true });
      throw err;
    } finally {
      this.inFlight.delete(tmp);
    }
  }

  /**
   * The newest snapshot that decodes and passes its crc. A file that fails is
   * renamed `<name>.broken` (as etcd does) so it is looked at by a person,
   * not retried on every start, and the next older one is tried.
   */
  async loadNewest(): Promise<Snapshot | undefined> {
    return this.loadNewestOf(this.names());
  }

  /**
   * The newest good snapshot among those the WAL has a marker for (see
   * Wal.validSnapshotRefs); files without one are skipped, not renamed.
   */
  async loadNewestAvailable(refs: { index: number; term: number }[]): Promise<Snapshot | undefined> {
    const wanted = new Set(refs.map((r) => snapshotFileName(r.term, r.index)));
    return this.loadNewestOf(this.names().filter((n) => wanted.has(n)));
  }

  private async loadNewestOf(names: string[]): Promise<Snapshot | undefined> {
    for (const name of [...names].reverse()) {
      const path = join(this.dir, name);
      try {
        return decodeSnapshotFile(fs.readFileSync(path));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        fs.renameSync(path, `${path}.broken`);
      }
    }
    return undefined;
  }

  /** Deletes all but the newest `keep` snapshot files, and stale temp files. */
  async purge(keep: number): Promise<void> {
    if (!fs.existsSync(this.dir)) return;
    const names = this.names();
    const doomed = names.slice(0, Math.max(0, names.length - Math.max(0, keep)));
    for (const name of doomed) fs.rmSync(join(this.dir, name), { force: true });
    for (const name of this.list()) {
      const path = join(this.dir, name);
      if (name.endsWith('.snap.tmp') && !this.inFlight.has(path)) fs.rmSync(path, { force: true });
    }
    await fsyncDir(this.dir);
  }

  /** Snapshot file names, oldest first. */
  private names(): string[] {
    return this.list()
      .filter((n) => SNAP_RE.test(n))
      .sort();
  }

  private list(): string[] {
    try {
      return fs.readdirSync(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  }
}
