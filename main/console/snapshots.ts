// Snapshot files under DIR/snapshots: take (etcdctl snapshot save from one
// member), import (a file from anywhere: ours, or `etcdctl snapshot save`
// from a real etcd 3.4), list, verify, delete. Restore lives in
// snapshotRestore.ts and the restore walkthrough.
//
// Taking and verifying are main/backup's (save.ts, inspect.ts), the same code
// `pilothouse backup save|verify` runs: the stream goes to NAME.db.part, is
// fsynced, checked (sha256 trailer, contents) and renamed; a cancelled or
// failed take leaves no file. Here: progress events (at most every
// PROGRESS_MS and at the end), job ids for cancel, and the metadata beside
// each file (NAME.db.json) so the backup list shows what the console took.

import { randomUUID } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, existsSync, fsyncSync, openSync, closeSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { EventSink, SnapshotInfo, SnapshotProgress } from '../../preload/contract';
import { snapshotStatus } from '../etcd/snapshot';
import { idHex, type MemberClient } from '../client/etcd/memberClient';
import { backupFileName, listBackups } from '../backup/catalog';
import { inspectSnapshot } from '../backup/inspect';
import { metadataPath, readMetadata, writeMetadata } from '../backup/metadata';
import { saveSnapshot, SaveCancelled } from '../backup/save';

export const PROGRESS_MS = 100;

export interface SnapshotStoreOptions {
  /** DIR/snapshots */
  dir: string;
  events?: EventSink;
  /** The member to stream from (a healthy one); undefined when none answers. */
  source(): { name: string; client: MemberClient } | undefined;
}

/** "2026-11-30T19-37-50.123Z.db": sortable, no characters a shell or Windows minds. */
export const snapshotFileName = backupFileName;

/** A name from the renderer must be a plain file in the snapshots folder. */
/** Throws unless name is a plain snapshot file name (no path, `.db`). */
export function checkSnapshotName(name: string): void {
  if (!/^[\w.-]+\.db$/.test(name) || name.startsWith('.')) throw new Error(`invalid snapshot name ${JSON.stringify(name)}`);
}

export class SnapshotStore {
  private readonly jobs = new Map<string, AbortController>();
  private readonly verified = new Map<string, boolean>();
  private readonly cache = new Map<string, { key: string; info: SnapshotInfo }>();

  constructor(private readonly o: SnapshotStoreOptions) {}

  get dir(): string {
    return this.o.dir;
  }

  path(name: string): string {
    checkSnapshotName(name);
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
    const name = snapshotFileName(new Date());
    const file = join(this.o.dir, name);
    const controller = new AbortController();
    this.jobs.set(jobId, controller);
    let bytes = 0;
    let totalBytes: number | undefined;
    let lastEmit = 0;
    const progress = (state: SnapshotProgress['state'], extra: Partial<SnapshotProgress> = {}): SnapshotProgress => ({
      jobId, bytes, state, ...(totalBytes !== undefined ? { totalBytes } : {}), ...extra,
    });
    const takenAt = new Date().toISOString();
    const done = (async (): Promise<SnapshotProgress> => {
      try {
        const r = await saveSnapshot({
          client: src.client,
          file,
          signal: controller.signal,
          onProgress: (p) => {
            bytes = p.bytes;
            totalBytes = p.totalBytes;
            const now = Date.now();
            if (now - lastEmit < PROGRESS_MS) return;
            lastEmit = now;
            this.emit(progress('running'));
          },
        });
        const clusterId = await clusterIdOf(src.client);
        writeMetadata(file, { facts: r.facts, takenAt, member: src.name, clusterId, source: 'save' });
        this.verified.set(name, true);
        return progress('done', { snapshot: this.info(name) });
      } catch (err) {
        if (err instanceof SaveCancelled) return progress('cancelled');
        return progress('failed', { error: (err as Error).message });
      } finally {
        this.jobs.delete(jobId);
      }
    })().then((p) => {
      this.emit(p);
      return p;
    });
    this.emit(progress('running'));
    return { jobId, done };
  }

  cancel(jobId: string): { cancelled: boolean } {
    const job = this.jobs.get(jobId);
    if (!job) return { cancelled: false };
    job.abort();
    return { cancelled: true };
  }

  /** Every complete snapshot file, newest first. */
  list(): SnapshotInfo[] {
    return listBackups(this.o.dir).map((e) => this.info(e.name));
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
      if (meta.importedFrom !== undefined) info.importedFrom = meta.importedFrom;
      if (meta.lastDrill) info.lastDrill = { ...meta.lastDrill };
    }
    return info;
  }

  /** Re-reads the whole file: its sha256 trailer, header and contents (main/backup inspect). */
  verify(name: string): SnapshotInfo {
    const path = this.path(name);
    if (!existsSync(path)) throw new Error(`stat ${path}: no such file or directory`);
    let ok: boolean;
    try {
      inspectSnapshot(path);
      ok = true;
    } catch {
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
    rmSync(metadataPath(path), { force: true });
    this.verified.delete(name);
    this.cache.delete(name);
    return { deleted: true };
  }

  /**
   * Checks the file as `pilothouse backup verify` does (integrity, hash,
   * revision, live keys per resource; a damaged file is refused before anything
   * is written), then copies it to DIR/snapshots/<time>.db (0600, through a
   * fsynced .part so a failed copy leaves nothing) with metadata saying it was
   * imported and from where. The original is left where it is.
   */
  import(from: string): SnapshotInfo {
    if (typeof from !== 'string' || from.trim() === '') throw new Error('no snapshot file given');
    // the console's working directory means nothing to its user: only an absolute path says which file
    if (!isAbsolute(from.trim())) throw new Error(`give the snapshot's absolute path (got ${JSON.stringify(from)})`);
    const source = resolve(from.trim());
    if (existsSync(source) && !statSync(source).isFile()) throw new Error(`${source} is not a file`);
    inspectSnapshot(source); // throws "snapshot … is damaged: …" or "… no such file"
    const name = snapshotFileName(new Date());
    const file = join(this.o.dir, name);
    const part = `${file}.part`;
    mkdirSync(this.o.dir, { recursive: true, mode: 0o700 });
    try {
      copyFileSync(source, part);
      chmodSync(part, 0o600);
      const fd = openSync(part, 'r');
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      // checked again where it now lies: the copy is what a restore will read
      const facts = inspectSnapshot(part);
      renameSync(part, file);
      writeMetadata(file, { facts: { ...facts, file }, takenAt: new Date().toISOString(), member: '', clusterId: '', source: 'import', importedFrom: source });
    } catch (err) {
      rmSync(part, { force: true });
      throw err;
    }
    this.verified.set(name, true);
    return this.info(name);
  }

  /** Cancels running jobs (their .part files are removed). */
  dispose(): void {
    for (const id of [...this.jobs.keys()]) this.cancel(id);
  }

  private emit(p: SnapshotProgress): void {
    this.o.events?.emit('snapshotProgress', p);
  }
}

/** The cluster id the member reports, for the metadata; '' when it does not answer now. */
async function clusterIdOf(client: MemberClient): Promise<string> {
  try {
    const st = await client.status();
    return st.header ? idHex(st.header.cluster_id) : '';
  } catch {
    return '';
  }
}
