// What a snapshot file holds, checked: the facts verify prints, the metadata
// stores and the drill compares a restored cluster against.
//
// - sha256: of the body (the file without etcd's 32-byte sha256 trailer),
//   which is the trailer's own value when the file carries one;
// - hash and revision: as `etcdctl snapshot status` reports them;
// - totalKeys: live keys at the snapshot's revision (what
//   `etcdctl get "" --prefix --count-only` would count on a cluster restored
//   from it), = the sum of `resources` plus nonRegistryKeys;
// - resources: live keys per Kubernetes resource, keyed by the etcd prefix an
//   operator would count with `etcdctl get --prefix`: '/registry/pods',
//   '/registry/apiregistration.k8s.io/apiservices' (a group, which has a dot)
//   and kube-apiserver's two-level prefixes '/registry/services/specs' and
//   '/registry/services/endpoints'.

import { readFileSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { hasHashTrailer, readSnapshotContents, snapshotStatus } from '../etcd/snapshot/index';

export interface SnapshotFacts {
  file: string;
  sizeBytes: number;
  /** Hex sha256 of the body. */
  sha256: string;
  integrity: 'ok';
  /** As `etcdctl snapshot status` prints it (HASH, here as a number). */
  hash: number;
  revision: number;
  totalKeys: number;
  /** '/registry/<resource>' or '/registry/<group>/<resource>' → live key count. */
  resources: Record<string, number>;
  nonRegistryKeys: number;
}

const REGISTRY = '/registry/';
/** kube-apiserver stores these resources one level deeper than the rest. */
const TWO_LEVEL = new Set(['services']);

/** The resource prefix of a /registry key, or undefined for any other key. */
export function resourceOf(key: string): string | undefined {
  if (!key.startsWith(REGISTRY)) return undefined;
  const parts = key.slice(REGISTRY.length).split('/');
  const first = parts[0] ?? '';
  if (first === '') return undefined;
  if ((first.includes('.') || TWO_LEVEL.has(first)) && parts.length > 2) return `${REGISTRY}${first}/${parts[1]}`;
  return `${REGISTRY}${first}`;
}

export interface InspectOptions {
  /** The name errors call the file by (a save checks FILE.part but reports FILE). */
  label?: string;
}

export function inspectSnapshot(path: string, o: InspectOptions = {}): SnapshotFacts {
  const label = o.label ?? path;
  let file: Buffer;
  try {
    file = readFileSync(path);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ENOENT') throw new Error(`snapshot ${label}: no such file`);
    throw new Error(`snapshot ${label}: ${e.message}`);
  }
  const sizeBytes = statSync(path).size;
  let status: ReturnType<typeof snapshotStatus>;
  let contents: ReturnType<typeof readSnapshotContents>;
  try {
    // status checks the sha256 trailer; the contents need not check it again
    status = snapshotStatus(file);
    contents = readSnapshotContents(file, { skipHashCheck: true });
  } catch (err) {
    throw new Error(`snapshot ${label} is damaged: ${explain(err as Error, sizeBytes)}`);
  }
  // with a trailer, status has just checked that it is the body's sha256
  const sha256 = hasHashTrailer(file.length) ? file.subarray(file.length - 32).toString('hex') : createHash('sha256').update(file).digest('hex');

  const resources: Record<string, number> = {};
  let nonRegistryKeys = 0;
  for (const kv of contents.kvs) {
    const r = resourceOf(kv.key.toString('latin1'));
    if (r === undefined) nonRegistryKeys++;
    else resources[r] = (resources[r] ?? 0) + 1;
  }
  return {
    file: path,
    sizeBytes,
    sha256,
    integrity: 'ok',
    hash: status.hash,
    revision: contents.revision,
    totalKeys: contents.kvs.length,
    resources: Object.fromEntries(Object.entries(resources).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    nonRegistryKeys,
  };
}

/** The low-level reason, said in terms of what happened to the file. */
function explain(err: Error, size: number): string {
  if (err.message.startsWith('expected sha256')) return 'sha256 checksum mismatch (the file was altered or corrupted after it was saved)';
  if (err.message.includes('missing hash')) return `no sha256 trailer (${size} bytes: truncated, or not a snapshot file)`;
  if (err.message.includes('truncated') || err.message.includes('file size too small')) return `truncated (${size} bytes): ${err.message}`;
  return err.message;
}
