import { EventEmitter } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SnapshotProgress } from '../../../preload/contract';
import { sha256 } from '../../../main/etcd/snapshotFile';
import { snapshotStatus } from '../../../main/etcd/snapshot/index';
import { readMetadata } from '../../../main/backup/metadata';
import { snapshotFileOf } from '../../support/snapshotFixture';
import type { MemberClient } from '../../../main/client/etcd/memberClient';
import { SnapshotStore } from '../../../main/console/snapshots';

// a real store's image with enough values to take several chunks
const file = snapshotFileOf(Array.from({ length: 40 }, (_, i) => ({ put: `/registry/configmaps/default/c${i}`, value: 'x'.repeat(4000) })));
const body = file.subarray(0, file.length - 32);
const status = snapshotStatus(file);

/** A Snapshot stream as a member sends it: 32 KiB chunks with remaining_bytes, then the sha256. */
class FakeStream extends EventEmitter {
  cancelled = false;
  cancel(): void {
    this.cancelled = true;
    queueMicrotask(() => this.emit('error', Object.assign(new Error('1 CANCELLED: Cancelled on client'), { details: 'Cancelled on client' })));
  }
  sendBody(upTo = body.length, trailer: Buffer = sha256(body)): void {
    for (let off = 0; off < upTo; off += 32 * 1024) {
      const blob = body.subarray(off, Math.min(off + 32 * 1024, body.length));
      this.emit('data', { remaining_bytes: String(body.length - off - blob.length), blob });
    }
    if (upTo >= body.length) this.emit('data', { remaining_bytes: '0', blob: trailer });
  }
}

let dir: string;
let stream: FakeStream;
let events: SnapshotProgress[];
let store: SnapshotStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ph-snaps-'));
  events = [];
  stream = new FakeStream();
  const client = { snapshot: () => stream } as unknown as MemberClient;
  store = new SnapshotStore({ dir: join(dir, 'snapshots'), events: { emit: (_n, p) => events.push(p as SnapshotProgress) }, source: () => ({ name: 'm1', client }) });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('snapshot store', () => {
  it('streams into a .part file, renames it when complete, and lists it with the status numbers', async () => {
    const { jobId, done } = store.take();
    expect(readdirSync(join(dir, 'snapshots'))[0]).toMatch(/\.db\.part$/);
    stream.sendBody();
    stream.emit('end');
    const final = await done;
    expect(final).toMatchObject({ jobId, state: 'done', bytes: body.length + 32, totalBytes: body.length + 32 });
    expect(final.snapshot).toMatchObject({ size: body.length + 32, revision: '41', totalKeys: status.totalKey, hash: status.hash.toString(16), verified: true });
    expect(readMetadata(join(dir, 'snapshots', final.snapshot!.name)), 'the metadata the backup list reads').toMatchObject({ member: 'm1', source: 'save', facts: { revision: 41, totalKeys: 40, resources: { '/registry/configmaps': 40 } } });
    expect(readdirSync(join(dir, 'snapshots')).sort()).toEqual([final.snapshot!.name, `${final.snapshot!.name}.json`]);
    expect((statSync(join(dir, 'snapshots', final.snapshot!.name)).mode & 0o777).toString(8), 'a snapshot holds every Secret').toBe('600');
    expect(store.list().map((s) => s.name)).toEqual([final.snapshot!.name]);
    expect(events[0]).toMatchObject({ state: 'running', bytes: 0 });
    expect(events.at(-1)!.state).toBe('done');
  });

  it('a wrong sha256 trailer fails the job and leaves no file', async () => {
    const { done } = store.take();
    stream.sendBody(body.length, Buffer.alloc(32));
    stream.emit('end');
    const final = await done;
    expect(final.state).toBe('failed');
    expect(final.error).toMatch(/is damaged: sha256 checksum mismatch/);
    expect(readdirSync(join(dir, 'snapshots'))).toEqual([]);
  });

  it('a stream that ends early fails like etcdctl (no checksum)', async () => {
    const { done } = store.take();
    stream.sendBody(32 * 1024);
    stream.emit('end');
    const final = await done;
    expect(final).toMatchObject({ state: 'failed', error: `sha256 checksum not found [bytes: ${32 * 1024}]` });
  });

  it('cancel ends the call and removes the partial file', async () => {
    const { jobId, done } = store.take();
    stream.sendBody(64 * 1024);
    expect(store.cancel(jobId)).toEqual({ cancelled: true });
    const final = await done;
    expect(stream.cancelled).toBe(true);
    expect(final).toMatchObject({ state: 'cancelled', bytes: 64 * 1024, totalBytes: body.length + 32 });
    expect(readdirSync(join(dir, 'snapshots'))).toEqual([]);
    expect(store.cancel(jobId)).toEqual({ cancelled: false });
  });

  it('verify notices a corrupted file; delete removes it; names cannot leave the folder', async () => {
    const { done } = store.take();
    stream.sendBody();
    stream.emit('end');
    const { snapshot } = await done;
    const path = join(dir, 'snapshots', snapshot!.name);
    expect(store.verify(snapshot!.name).verified).toBe(true);
    const bytes = readFileSync(path);
    bytes[600] ^= 0xff;
    writeFileSync(path, bytes);
    expect(store.verify(snapshot!.name).verified).toBe(false);
    expect(() => store.verify('../etcdctl.env')).toThrow('invalid snapshot name "../etcdctl.env"');
    expect(() => store.verify('gone.db')).toThrow(`stat ${join(dir, 'snapshots', 'gone.db')}: no such file or directory`);
    expect(store.delete(snapshot!.name)).toEqual({ deleted: true });
    expect(existsSync(path)).toBe(false);
    expect(store.delete(snapshot!.name)).toEqual({ deleted: false });
  });
});
