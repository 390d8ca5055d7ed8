// SnapshotStore.import: a file from outside DIR/snapshots — here the snapshot
// Debian's etcd 3.4 saved (test/fixtures/etcd) and one of ours — verified,
// copied in (0600) with metadata marked imported; a damaged, missing or
// relative one refused with nothing written.

import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readMetadata } from '../../../main/backup/metadata';
import { SnapshotStore } from '../../../main/console/snapshots';
import { snapshotFileOf } from '../../support/snapshotFixture';

const ETCD34 = join(__dirname, '../../fixtures/etcd/etcd34-snapshot.db');
let dir: string;
let store: SnapshotStore;
const snapshotsDir = () => join(dir, 'snapshots');
const mode = (f: string) => (statSync(f).mode & 0o777).toString(8);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ph-import-'));
  store = new SnapshotStore({ dir: snapshotsDir(), source: () => undefined });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('importing a snapshot', () => {
  it("takes etcd 3.4's own snapshot file: a byte-for-byte copy, 0600, metadata marked imported", () => {
    const info = store.import(ETCD34);
    expect(info.path.startsWith(snapshotsDir())).toBe(true);
    expect(readFileSync(info.path).equals(readFileSync(ETCD34))).toBe(true);
    expect(mode(info.path)).toBe('600');
    expect(mode(`${info.path}.json`)).toBe('600');
    expect(info).toMatchObject({ verified: true, importedFrom: ETCD34, takenFrom: { source: 'import', member: '', clusterId: '' } });
    expect(info.facts).toMatchObject({ integrity: 'ok', revision: 7 });
    expect(readMetadata(info.path)).toMatchObject({ source: 'import', importedFrom: ETCD34, facts: { file: info.path } });
    expect(store.list().map((s) => s.name)).toEqual([info.name]);
    // the original is left where it was
    expect(statSync(ETCD34).isFile()).toBe(true);
  });

  it('takes one of ours and counts its /registry keys', () => {
    const ours = join(dir, 'ours.db');
    writeFileSync(ours, snapshotFileOf([{ put: '/registry/configmaps/default/a' }, { put: '/registry/pods/default/p' }, { put: 'plain' }]));
    const info = store.import(ours);
    expect(info.facts).toMatchObject({ totalKeys: 3, nonRegistryKeys: 1, resources: { '/registry/configmaps': 1, '/registry/pods': 1 } });
  });

  const refused = [
    { name: 'a truncated file', file: () => { const f = join(dir, 'cut.db'); writeFileSync(f, readFileSync(ETCD34).subarray(0, 5000)); return f; }, want: /damaged/ },
    { name: 'a flipped byte', file: () => { const b = readFileSync(ETCD34); b[b.length - 100]! ^= 1; const f = join(dir, 'flip.db'); writeFileSync(f, b); return f; }, want: /sha256 checksum mismatch/ },
    { name: 'a missing file', file: () => join(dir, 'missing.db'), want: /no such file/ },
    { name: 'a relative path', file: () => 'snap.db', want: /absolute path/ },
    { name: 'a directory', file: () => dir, want: /not a file/ },
    { name: 'no path', file: () => '  ', want: /no snapshot file given/ },
  ];
  for (const c of refused) {
    it(`refuses ${c.name} and writes nothing`, () => {
      expect(() => store.import(c.file())).toThrow(c.want);
      let left: string[] = [];
      try {
        left = readdirSync(snapshotsDir());
      } catch {
        // never created: nothing written either
      }
      expect(left).toEqual([]);
    });
  }
});
