// Snapshot files under DIR/snapshots: take (etcdctl snapshot save from one
// member), list, verify, delete. Restore lives in snapshotRestore.ts.
//
// Taking one streams Maintenance.Snapshot into NAME.db.part, reports progress
// (snapshotProgress, at most every PROGRESS_MS and at the end), can be
// cancelled, and only a complete file becomes NAME.db (fsync, then rename, as
// etcdctl does). etcdctl checks only that the size is ≡ 32 (mod 512) — that a
// sha256 trailer is there; we also check the trailer against the body and
// read the header (`pilothouse snapshot status` code), so a listed file is
// one that restores.

import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, fchmodSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { EventSink, SnapshotInfo, SnapshotProgress } from '../../preload/contract';
import { hasHashTrailer } from '../etcd/snapshot';
import { snapshotStatus } from '../etcd/snapshot';
import type { MemberClient, WireSnapshotChunk } from '../client/etcd/memberClient';
import { SnapshotProgressCounter } from '../backup/snapshotProgress';
import { readMetadata } from '../backup/metadata';

export const PROGRESS_MS = 100;

export interface SnapshotStoreOptions {
  /** DIR/snapshots */
  dir: string;
  events?: EventSink;
  /** The member to stream from (a healthy one); undefined when none answers. */
  source(): { name: string; client: MemberClient } | undefined;
}

interface Job {
  cancel(): void;
  cancelled: boolean;
}

/** "2026-11-30T19-37-50.123Z.db": sortable, no characters a shell or Windows minds. */
export function snapshotFileName(at: Date): string {
  return `${at.toISOString().replace(/:/g, '-')}.db`;
}

/** A name from the renderer must be a plain file in the snapshots folder. */
function checkName(name: string): void {
  if (!/^[\w.-]+\.db$/.test(name) || name.startsWith('.')) throw new Error(`invalid snapshot name ${JSON.stringify(name)}`);
}

export class SnapshotStore {
  private readonly jobs = new Map<string, Job>();
  private readonly verified = new Map<string, boolean>();
  private readonly cache = new Map<string, { key: string; info: SnapshotInfo }>();

  constructor(private readonly o: SnapshotStoreOptions) {}

  get dir(): string {
    return this.o.dir;
  }

  path(name: string): string {
    checkName(name);
    return join(this.o.dir, name);
  }

  /** Starts streaming a snapshot; resolves with the job id at once. `done` settles with the final progress. */
  take(): { jobId: string; done: Promise<SnapshotProgress> } {
    const jobId = randomUUID();
    const src = this.o.source();
    if (!src) {
      const p: SnapshotProgress = { jobId, bytes: 0, state: 'failed', error: 'no member answers: cannot take a snapshot' };
      this.emit(p);
      return { jobId, done: Promise.resolve(p) };
    }
    mkdirSync(this.o.dir, { recursive: true });
    const name = snapshotFileName(new Date());
    const final = join(this.o.dir, name);
    const part = `${final}.part`;
    // A snapshot holds every key, Secrets included: owner-only, as etcd writes its files.
    const fd = openSync(part, 'w', 0o600);
    fchmodSync(fd, 0o600);
    const counter = new SnapshotProgressCounter();
    const call = src.client.snapshot();
    const job: Job = { cancelled: false, cancel: () => call.cancel() };
    this.jobs.set(jobId, job);
    let lastEmit = 0;
    const progress = (state: SnapshotProgress['state'], extra: Partial<SnapshotProgress> = {}): SnapshotProgress => {
      const p: SnapshotProgress = { jobId, bytes: counter.bytes, state, ...extra };
      if (counter.totalBytes !== undefined) p.totalBytes = counter.totalBytes;
      return p;
    };

    const done = new Promise<SnapshotProgress>((resolve) => {
      let settled = false;
      const finish = (p: SnapshotProgress) => {
        if (settled) return;
        settled = true;
        this.jobs.delete(jobId);
        try {
          closeSync(fd);
        } catch {
          // already closed
        }
        if (p.state !== 'done') rmSync(part, { force: true });
        this.emit(p);
        resolve(p);
      };
      call.on('data', (chunk: WireSnapshotChunk) => {
        try {
          writeSync(fd, chunk.blob);
        } catch (err) {
          call.cancel();
          finish(progress('failed', { error: `write ${part}: ${(err as Error).message}` }));
          return;
        }
        counter.add(chunk.blob.length, chunk.remaining_bytes);
        const now = Date.now();
        if (now - lastEmit >= PROGRESS_MS) {
          lastEmit = now;
          this.emit(progress('running'));
        }
      });
      call.on('error', (err: Error & { details?: string }) => {
        if (job.cancelled) finish(progress('cancelled'));
        else finish(progress('failed', { error: err.details || err.message }));
      });
      call.on('end', () => {
        if (job.cancelled) return finish(progress('cancelled'));
        try {
          fsyncSync(fd);
          closeSync(fd);
          const size = statSync(part).size;
          if (!hasHashTrailer(size)) throw new Error(`sha256 checksum not found [bytes: ${size}]`);
          snapshotStatus(readFileSync(part)); // the trailer matches the body and the header is ours
          renameSync(part, final);
          this.verified.set(name, true);
          finish(progress('done', { snapshot: this.info(name) }));
        } catch (err) {
          finish(progress('failed', { error: (err as Error).message }));
        }
      });
    });
    this.emit(progress('running'));
    return { jobId, done };
  }

  cancel(jobId: string): { cancelled: boolean } {
    const job = this.jobs.get(jobId);
    if (!job) return { cancelled: false };
    job.cancelled = true;
    job.cancel();
    return { cancelled: true };
  }

  /** Every complete snapshot file, newest first. */
  list(): SnapshotInfo[] {
    if (!existsSync(this.o.dir)) return [];
    const names = readdirSync(this.o.dir).filter((n) => n.endsWith('.db') && !n.startsWith('.'));
    return names.map((n) => this.info(n)).sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.name.localeCompare(a.name));
  }

  /** Size, revision, keys, hash and time of one file (cached until the file changes). */
  info(name: string): SnapshotInfo {
    const path = this.path(name);
    const st = statSync(path);
    const key = `${st.size}:${st.mtimeMs}`;
    const cached = this.cache.get(name);
    let info: SnapshotInfo;
    if (cached && cached.key === key) info = { ...cached.info };
    else {
      info = { name, path, size: st.size, revision: '', totalKeys: 0, hash: '', createdAt: st.mtime.toISOString() };
      try {
        const s = snapshotStatus(readFileSync(path));
        info.revision = String(s.revision);
        info.totalKeys = s.totalKey;
        info.hash = s.hash.toString(16);
      } catch {
        this.verified.set(name, false); // unreadable or corrupt: it cannot be restored
      }
      this.cache.set(name, { key, info: { ...info } });
    }
    const v = this.verified.get(name);
    if (v !== undefined) info.verified = v;
    // read each time: a drill (console or CLI) records its outcome there
    const meta = readMetadata(path);
    if (meta && meta.facts.sizeBytes !== st.size) info.verified = false; // changed since its backup verified it
    else if (meta) {
      const f = meta.facts;
      info.facts = { integrity: f.integrity, sha256: f.sha256, revision: f.revision, totalKeys: f.totalKeys, resources: { ...f.resources }, nonRegistryKeys: f.nonRegistryKeys };
      info.takenFrom = { member: meta.member, source: meta.source, clusterId: meta.clusterId };
      if (meta.lastDrill) info.lastDrill = { ...meta.lastDrill };
    }
    return info;
  }

  /** Re-reads the whole file and checks its sha256 trailer and header. */
  verify(name: string): SnapshotInfo {
    const path = this.path(name);
    let ok: boolean;
    try {
      snapshotStatus(readFileSync(path));
      ok = true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`stat ${path}: no such file or directory`);
      ok = false;
    }
    this.verified.set(name, ok);
    this.cache.delete(name);
    return this.info(name);
  }

  delete(name: string): { deleted: boolean } {
    const path = this.path(name);
    if (!existsSync(path)) return { deleted: false };
    rmSync(path);
    this.verified.delete(name);
    this.cache.delete(name);
    return { deleted: true };
  }

  /** Cancels running jobs (their .part files are removed). */
  dispose(): void {
    for (const id of [...this.jobs.keys()]) this.cancel(id);
  }

  private emit(p: SnapshotProgress): void {
    this.o.events?.emit('snapshotProgress', p);
  }
}
