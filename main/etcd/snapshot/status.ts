// `snapshot status`: what etcdctl 3.4 prints for a snapshot file (etcdctl
// snapshot/v3_snapshot.go Status and the printers in printer_*.go).
//
// A bbolt file (ours since the Snapshot stream sends bbolt, or etcd's) is
// read as etcdctl reads it: tx.Check() first, then
// - hash: CRC-32C over every bucket name, and each key and value in it;
// - revision: the main revision of the last row of the "key" bucket;
// - totalKey: entries in all buckets;
// - totalSize: tx.Size(), the high-water mark in bytes.
// An older PHSNAP1 file (../snapshotFile.ts) has no buckets, so its numbers are
// our own: the MVCC store hash recorded at save time (CRC-32C over every
// retained revision and both revision counters; MvccStore.hash()), the MVCC
// revision, the keys in the MVCC key index, and the body's size without the
// sha256 trailer.
// Unlike etcdctl, a sha256 trailer is checked first; a bbolt file without one
// (a member's db file) is read as it is, as etcdctl reads it.

import { BoltDb } from '../bbolt/index';
import { Crc32c } from '../mvcc/crc32c';
import { decodeSnapshotBody, hasHashTrailer, verifiedBody } from '../snapshotFile';
import { isBoltFile, openChecked } from './snapshotState';

export interface SnapshotStatus {
  hash: number;
  revision: number;
  totalKey: number;
  totalSize: number;
}

export function snapshotStatus(file: Uint8Array): SnapshotStatus {
  const bare = !hasHashTrailer(file.length) && isBoltFile(file);
  const body = verifiedBody(file, bare);
  if (isBoltFile(body)) return boltStatus(openChecked(body));
  const img = decodeSnapshotBody(body);
  return { hash: img.storeHash, revision: img.revision, totalKey: img.keyCount, totalSize: body.length };
}

function boltStatus(db: BoltDb): SnapshotStatus {
  const h = new Crc32c();
  let revision = 0;
  let totalKey = 0;
  db.root.forEach((b) => {
    if (!b.isBucket) throw new Error(`cannot get hash of bucket ${b.key.toString('latin1')}`);
    h.update(b.key);
    const isKey = b.key.toString('latin1') === 'key';
    db.root.childBucket(b.value).forEach((e) => {
      h.update(e.key);
      if (!e.isBucket) h.update(e.value); // Go's ForEach gives a nested bucket a nil value
      if (isKey && e.key.length >= 8) revision = Number(e.key.readBigInt64BE(0));
      totalKey++;
    });
  });
  return { hash: h.digest(), revision, totalKey, totalSize: db.size };
}

/** go-humanize Bytes (SI units), as etcdctl formats TOTAL SIZE. */
export function humanizeBytes(s: number): string {
  if (s < 10) return `${s} B`;
  const sizes = ['B', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB'];
  const e = Math.floor(Math.log(s) / Math.log(1000));
  const tenths = Math.floor((s / 1000 ** e) * 10 + 0.5); // val = tenths / 10
  if (tenths < 100) return `${(tenths / 10).toFixed(1)} ${sizes[e]}`;
  // Go's %.0f rounds an exact half to even (20.5 → "20"), toFixed rounds it up
  let whole = Math.floor(tenths / 10);
  const rest = tenths % 10;
  if (rest > 5 || (rest === 5 && whole % 2 === 1)) whole++;
  return `${whole} ${sizes[e]}`;
}

function row(st: SnapshotStatus): string[] {
  return [st.hash.toString(16), String(st.revision), String(st.totalKey), humanizeBytes(st.totalSize)];
}

/** etcdctl -w simple (the default): "5b91b5a7, 3, 6, 20 kB". */
export function formatStatusSimple(st: SnapshotStatus): string {
  return `${row(st).join(', ')}\n`;
}

/** etcdctl -w json: {"hash":…,"revision":…,"totalKey":…,"totalSize":…}. */
export function formatStatusJson(st: SnapshotStatus): string {
  return `${JSON.stringify({ hash: st.hash, revision: st.revision, totalKey: st.totalKey, totalSize: st.totalSize })}\n`;
}

/**
 * etcdctl -w table: olekukonko/tablewriter with upper-cased, centred headers
 * (extra space on the right) and right-aligned cells.
 */
export function formatStatusTable(st: SnapshotStatus): string {
  const headers = ['HASH', 'REVISION', 'TOTAL KEYS', 'TOTAL SIZE'];
  const cells = row(st);
  const widths = headers.map((h, i) => Math.max(h.length, cells[i]!.length));
  const line = `+${widths.map((w) => '-'.repeat(w + 2)).join('+')}+`;
  const centre = (s: string, w: number) => {
    const gap = w - s.length;
    const left = Math.floor(gap / 2);
    return ' '.repeat(left) + s + ' '.repeat(gap - left);
  };
  const head = `|${headers.map((h, i) => ` ${centre(h, widths[i]!)} `).join('|')}|`;
  const body = `|${cells.map((c, i) => ` ${c.padStart(widths[i]!)} `).join('|')}|`;
  return [line, head, line, body, line, ''].join('\n');
}
