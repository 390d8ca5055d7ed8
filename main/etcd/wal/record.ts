// WAL records: the frame around every record and the compact payload codecs.
// The layout is specified in wal.ts's header; this module is the only place
// that knows byte offsets.

import { crc32c } from './crc32c';
import type { Entry, EntryType, HardState } from '../raft/types';

/** Same numbers as etcd's wal record types (wal.go). */
export enum RecordType {
  Metadata = 1,
  Entry = 2,
  State = 3,
  Crc = 4,
  Snapshot = 5,
}

/** length u32 LE + crc u32 LE, then type u8 and the payload. */
export const FRAME_HEADER = 8;
const ENTRY_FIXED = 17; // term u64, index u64, type u8
const STATE_SIZE = 24; // term u64, vote u64, commit u64
const SNAPSHOT_SIZE = 16; // index u64, term u64
const CRC_SIZE = 4; // previous rolling crc u32

export interface WalSnapshotRef {
  index: number;
  term: number;
}

const TWO32 = 2 ** 32;

export function writeU64(buf: Buffer, n: number, at: number): void {
  buf.writeUInt32LE(n % TWO32, at);
  buf.writeUInt32LE(Math.floor(n / TWO32), at + 4);
}

export function readU64(buf: Uint8Array, at: number): number {
  const lo = buf[at] | (buf[at + 1] << 8) | (buf[at + 2] << 16) | (buf[at + 3] << 24);
  const hi = buf[at + 4] | (buf[at + 5] << 8) | (buf[at + 6] << 16) | (buf[at + 7] << 24);
  return (hi >>> 0) * TWO32 + (lo >>> 0);
}

export function isEmptyHardState(hs: HardState): boolean {
  return hs.term === 0 && hs.vote === 0n && hs.commit === 0;
}

/**
 * Builds one contiguous Buffer holding a batch of framed records, chaining
 * the rolling crc through them. Sizes are summed first so the batch costs a
 * single allocation and, later, a single write.
 */
export class BatchEncoder {
  private readonly parts: { type: RecordType; size: number; fill: (b: Buffer, at: number) => void }[] = [];
  private total = 0;

  get empty(): boolean {
    return this.parts.length === 0;
  }

  entry(e: Entry): this {
    const data = e.data;
    return this.add(RecordType.Entry, ENTRY_FIXED + data.length, (b, at) => {
      writeU64(b, e.term, at);
      writeU64(b, e.index, at + 8);
      b[at + 16] = e.type;
      b.set(data, at + ENTRY_FIXED);
    });
  }

  state(hs: HardState): this {
    return this.add(RecordType.State, STATE_SIZE, (b, at) => {
      writeU64(b, hs.term, at);
      b.writeBigUInt64LE(BigInt.asUintN(64, hs.vote), at + 8);
      writeU64(b, hs.commit, at + 16);
    });
  }

  snapshot(ref: WalSnapshotRef): this {
    return this.add(RecordType.Snapshot, SNAPSHOT_SIZE, (b, at) => {
      writeU64(b, ref.index, at);
      writeU64(b, ref.term, at + 8);
    });
  }

  metadata(md: Uint8Array): this {
    return this.add(RecordType.Metadata, md.length, (b, at) => b.set(md, at));
  }

  /** Starts a segment: carries the rolling crc of everything before it. */
  crc(prev: number): this {
    return this.add(RecordType.Crc, CRC_SIZE, (b, at) => b.writeUInt32LE(prev, at));
  }

  /** Frames every record; returns the bytes and the rolling crc after them. */
  finish(seed: number): { bytes: Buffer; crc: number } {
    const buf = Buffer.allocUnsafe(this.total);
    let at = 0;
    let crc = seed;
    for (const p of this.parts) {
      const bodyAt = at + FRAME_HEADER;
      buf.writeUInt32LE(1 + p.size, at);
      buf[bodyAt] = p.type;
      p.fill(buf, bodyAt + 1);
      if (p.type === RecordType.Crc) crc = buf.readUInt32LE(bodyAt + 1);
      crc = crc32c(crc, buf, bodyAt, bodyAt + 1 + p.size);
      buf.writeUInt32LE(crc, at + 4);
      at = bodyAt + 1 + p.size;
    }
    return { bytes: buf, crc };
  }

  private add(type: RecordType, size: number, fill: (b: Buffer, at: number) => void): this {
    this.parts.push({ type, size, fill });
    this.total += FRAME_HEADER + 1 + size;
    return this;
  }
}

/** Payload decoders; `p` is the payload without the type byte. */
export function decodeEntry(p: Buffer): Entry {
  if (p.length < ENTRY_FIXED) throw new Error(`entry payload of ${p.length} bytes`);
  return {
    term: readU64(p, 0),
    index: readU64(p, 8),
    type: p[16] as EntryType,
    // A copy: the log outlives the segment buffer it was read from.
    data: new Uint8Array(p.subarray(ENTRY_FIXED)),
  };
}

export function decodeState(p: Buffer): HardState {
  if (p.length !== STATE_SIZE) throw new Error(`state payload of ${p.length} bytes`);
  return { term: readU64(p, 0), vote: p.readBigUInt64LE(8), commit: readU64(p, 16) };
}

export function decodeSnapshot(p: Buffer): WalSnapshotRef {
  if (p.length !== SNAPSHOT_SIZE) throw new Error(`snapshot payload of ${p.length} bytes`);
  return { index: readU64(p, 0), term: readU64(p, 8) };
}

export function decodeCrc(p: Buffer): number {
  if (p.length !== CRC_SIZE) throw new Error(`crc payload of ${p.length} bytes`);
  return p.readUInt32LE(0);
}
