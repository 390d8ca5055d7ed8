// Taking a snapshot: the Maintenance.Snapshot stream of one member written to
// FILE.part (0600: a snapshot holds every key, Secrets included), fsynced,
// checked (the sha256 trailer matches the body, the contents decode) and only
// then renamed to FILE, with the directory fsynced so the rename survives a
// crash — what `etcdctl snapshot save FILE` does, plus the check. A cancelled
// or failed save (stream error, full disk, bad trailer) removes FILE.part, so
// nothing half-written is ever left to be mistaken for a backup.

import { closeSync, fstatSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { MemberClient, WireSnapshotChunk } from '../client/etcd/memberClient';
import { hasHashTrailer } from '../etcd/snapshot/index';
import { inspectSnapshot, type SnapshotFacts } from './inspect';
import { SnapshotProgressCounter } from './snapshotProgress';

export interface SaveProgress {
  bytes: number;
  /** Known from the first chunk on (remaining_bytes). */
  totalBytes?: number;
}

export interface SaveOptions {
  client: MemberClient;
  file: string;
  signal?: AbortSignal;
  onProgress?(p: SaveProgress): void;
}

export interface SaveResult {
  file: string;
  bytes: number;
  durationMs: number;
  facts: SnapshotFacts;
}

export class SaveCancelled extends Error {
  constructor() {
    super('snapshot cancelled');
    this.name = 'SaveCancelled';
  }
}

export async function saveSnapshot(o: SaveOptions): Promise<SaveResult> {
  if (o.signal?.aborted) throw new SaveCancelled();
  const started = Date.now();
  const part = `${o.file}.part`;
  mkdirSync(dirname(o.file), { recursive: true, mode: 0o700 });
  const fd = openSync(part, 'w', 0o600);
  let open = true;
  const closeFd = () => {
    if (!open) return;
    open = false;
    closeSync(fd);
  };
  try {
    const counter = await stream(o, fd);
    fsyncSync(fd);
    // etcdctl's own check and words for a stream that ended early, then ours:
    // a trailer that does not match, or contents that do not decode
    const size = fstatSync(fd).size;
    if (!hasHashTrailer(size)) throw new Error(`sha256 checksum not found [bytes: ${size}]`);
    closeFd();
    const facts = inspectSnapshot(part, { label: `streamed from the member into ${o.file}` });
    renameSync(part, o.file);
    fsyncDir(dirname(o.file));
    return { file: o.file, bytes: counter.bytes, durationMs: Date.now() - started, facts: { ...facts, file: o.file } };
  } catch (err) {
    try {
      closeFd();
    } catch {
      // a full disk can fail the close too; the file goes either way
    }
    rmSync(part, { force: true });
    throw err;
  }
}

function stream(o: SaveOptions, fd: number): Promise<SnapshotProgressCounter> {
  const counter = new SnapshotProgressCounter();
  const call = o.client.snapshot();
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (err?: Error) => {
      if (settled) return;
      settled = true;
      o.signal?.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve(counter);
    };
    const onAbort = () => {
      call.cancel();
      settle(new SaveCancelled());
    };
    o.signal?.addEventListener('abort', onAbort, { once: true });
    call.on('data', (chunk: WireSnapshotChunk) => {
      if (settled) return;
      try {
        writeAll(fd, chunk.blob);
      } catch (err) {
        call.cancel();
        settle(new Error(`write ${o.file}.part: ${(err as Error).message}`));
        return;
      }
      counter.add(chunk.blob.length, chunk.remaining_bytes);
      o.onProgress?.({ bytes: counter.bytes, ...(counter.totalBytes !== undefined ? { totalBytes: counter.totalBytes } : {}) });
    });
    call.on('error', (err: Error & { details?: string }) => settle(new Error(`snapshot stream: ${err.details || err.message}`)));
    call.on('end', () => settle());
  });
}

/** A regular file may take less than asked (a nearly full disk); what is left is written again. */
function writeAll(fd: number, b: Buffer): void {
  for (let off = 0; off < b.length; ) off += writeSync(fd, b, off, b.length - off);
}

function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
