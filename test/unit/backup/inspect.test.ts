import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inspectSnapshot, resourceOf } from '../../../main/backup/inspect';
import { readSnapshotContents } from '../../../main/etcd/snapshot/index';
import { snapshotFileOf } from '../../support/snapshotFixture';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'ph-inspect-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const kube = snapshotFileOf([
  { put: '/registry/pods/default/a' },
  { put: '/registry/pods/default/b', value: 'one' },
  { put: '/registry/pods/default/b', value: 'two' },
  { put: '/registry/pods/default/c' },
  { del: '/registry/pods/default/c' },
  { put: '/registry/services/specs/default/kubernetes' },
  { put: '/registry/services/endpoints/default/kubernetes' },
  { put: '/registry/apiregistration.k8s.io/apiservices/v1.apps' },
  { put: '/registry/ranges/serviceips' },
  { put: 'compact_rev_key' },
]);

describe('snapshot contents', () => {
  it('are the live keys at the latest revision, with their revisions', () => {
    const c = readSnapshotContents(kube);
    expect(c.revision).toBe(11);
    expect(c.compactRevision).toBe(-1);
    expect(c.kvs.map((kv) => kv.key.toString())).not.toContain('/registry/pods/default/c');
    const b = c.kvs.find((kv) => kv.key.toString() === '/registry/pods/default/b')!;
    expect({ value: b.value.toString(), create: b.createRevision, mod: b.modRevision, version: b.version, lease: b.lease }).toEqual({ value: 'two', create: 3, mod: 4, version: 2, lease: 0 });
  });
});

describe('inspectSnapshot', () => {
  const cases = [
    { key: '/registry/pods/default/a', want: '/registry/pods' },
    { key: '/registry/services/specs/default/k', want: '/registry/services/specs' },
    { key: '/registry/apiregistration.k8s.io/apiservices/v1.apps', want: '/registry/apiregistration.k8s.io/apiservices' },
    { key: '/registry/ranges/serviceips', want: '/registry/ranges' },
    { key: '/registry/', want: undefined },
    { key: 'foo', want: undefined },
  ];
  it.each(cases)('puts $key under $want', ({ key, want }) => expect(resourceOf(key)).toBe(want));

  it('counts live keys per resource and checks the trailer', () => {
    const file = join(dir, 'k.db');
    writeFileSync(file, kube);
    const f = inspectSnapshot(file);
    expect(f).toMatchObject({ file, sizeBytes: kube.length, integrity: 'ok', revision: 11, totalKeys: 7, nonRegistryKeys: 1 });
    expect(f.sha256).toBe(kube.subarray(kube.length - 32).toString('hex'));
    expect(f.resources).toEqual({
      '/registry/apiregistration.k8s.io/apiservices': 1,
      '/registry/pods': 2,
      '/registry/ranges': 1,
      '/registry/services/endpoints': 1,
      '/registry/services/specs': 1,
    });
  });

  it('refuses a flipped byte, a truncated file and a missing file, saying which', () => {
    const flipped = Buffer.from(kube);
    flipped[700]! ^= 0x01;
    writeFileSync(join(dir, 'flipped.db'), flipped);
    expect(() => inspectSnapshot(join(dir, 'flipped.db'))).toThrow(/damaged: sha256 checksum mismatch/);
    writeFileSync(join(dir, 'short.db'), kube.subarray(0, kube.length - 100));
    expect(() => inspectSnapshot(join(dir, 'short.db'))).toThrow(/damaged: no sha256 trailer \(\d+ bytes: truncated/);
    expect(() => inspectSnapshot(join(dir, 'gone.db'))).toThrow(`snapshot ${join(dir, 'gone.db')}: no such file`);
  });
});
