// Maintenance.Snapshot on the wire: 32 KiB chunks with remaining_bytes, then
// the sha256 of the body; etcdctl snapshot save writes exactly body + sha256.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClientReadableStream, ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClientServer, type ClientServerHandle } from '../../../../main/etcd/api/index';
import type { SnapshotBody } from '../../../../main/etcd/api/etcdServer';
import { sha256 } from '../../../../main/etcd/snapshotFile';
import { etcdctl, rawClient } from './clientHarness';
import { FakeEtcdServer } from './fakeEtcdServer';

class SnapshotFake extends FakeEtcdServer {
  body = new Uint8Array(0);
  /** Hand the body out chunk by chunk, as a member's bbolt plan does. */
  inPieces = false;
  async snapshotBody(): Promise<Uint8Array | SnapshotBody> {
    const body = this.body;
    if (!this.inPieces) return body;
    return {
      size: body.length,
      *chunks(n: number) {
        for (let off = 0; off < body.length; off += n) yield Buffer.from(body.subarray(off, off + n));
      },
    };
  }
}

interface Chunk {
  remaining_bytes: string;
  blob: Buffer;
}

function readSnapshot(endpoint: string): Promise<{ chunks: Chunk[]; err?: ServiceError }> {
  const client = rawClient(endpoint, 'Maintenance');
  const stream = (client as unknown as { Snapshot(req: object): ClientReadableStream<Chunk> }).Snapshot({});
  const chunks: Chunk[] = [];
  return new Promise((resolve) => {
    stream.on('data', (c: Chunk) => chunks.push(c));
    stream.on('error', (err: ServiceError) => {
      client.close();
      resolve({ chunks, err });
    });
    stream.on('end', () => {
      client.close();
      resolve({ chunks });
    });
  });
}

describe('Maintenance.Snapshot stream', () => {
  const fake = new SnapshotFake();
  let handle: ClientServerHandle;
  let endpoint: string;
  const dir = mkdtempSync(join(tmpdir(), 'pilothouse-snapstream-'));
  beforeAll(async () => {
    handle = await startClientServer(fake, { listenUrls: ['http://127.0.0.1:0'], maxRequestBytes: fake.config.maxRequestBytes });
    endpoint = `127.0.0.1:${handle.ports[0]}`;
  });
  afterAll(async () => {
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends 32 KiB chunks counting down, then the sha256', async () => {
    fake.body = new Uint8Array(137 * 512).map((_, i) => i % 251);
    const { chunks, err } = await readSnapshot(endpoint);
    expect(err).toBeUndefined();
    expect(chunks.map((c) => [Number(c.remaining_bytes), c.blob.length])).toEqual([
      [137 * 512 - 32768, 32768],
      [137 * 512 - 65536, 32768],
      [0, 137 * 512 - 65536],
      [0, 32],
    ]);
    expect(Buffer.concat(chunks.slice(0, 3).map((c) => c.blob)).equals(Buffer.from(fake.body))).toBe(true);
    expect(chunks[3]!.blob.equals(sha256(fake.body))).toBe(true);
  });

  it('streams a body produced in pieces the same way', async () => {
    fake.body = new Uint8Array(20 * 4096).map((_, i) => (i * 7) % 253);
    fake.inPieces = true;
    try {
      const { chunks, err } = await readSnapshot(endpoint);
      expect(err).toBeUndefined();
      expect(chunks.map((c) => [Number(c.remaining_bytes), c.blob.length])).toEqual([
        [20 * 4096 - 32768, 32768],
        [20 * 4096 - 65536, 32768],
        [0, 20 * 4096 - 65536],
        [0, 32],
      ]);
      expect(Buffer.concat(chunks.slice(0, 3).map((c) => c.blob)).equals(Buffer.from(fake.body))).toBe(true);
      expect(chunks[3]!.blob.equals(sha256(fake.body))).toBe(true);
    } finally {
      fake.inPieces = false;
    }
  });

  it('is what etcdctl snapshot save writes to disk', async () => {
    fake.body = new Uint8Array(3 * 512).fill(7);
    const file = join(dir, 'f.db');
    const r = await etcdctl(endpoint, ['snapshot', 'save', file]);
    expect(r.stdout).toBe(`Snapshot saved at ${file}\n`);
    expect(readFileSync(file).equals(Buffer.concat([fake.body, sha256(fake.body)]))).toBe(true);
  });

  it('is refused on a learner', async () => {
    fake.learner = true;
    try {
      const { chunks, err } = await readSnapshot(endpoint);
      expect(chunks).toEqual([]);
      expect(err?.details).toBe('etcdserver: rpc not supported for learner');
    } finally {
      fake.learner = false;
    }
  });
});
