// How the objects under /registry/ are stored, per resource: what a guided
// change of storage (encryption at rest turned on, a key rotated) checks
// before it starts and after its StorageVersionMigrations finish — every
// Secret `encrypted:aescbc:key1` and none left `protobuf`.
//
// An encoding is read from the value's first bytes, as kube-apiserver tells them apart:
//   protobuf                      "k8s\0" (the runtime.Unknown envelope)
//   encrypted:<provider>:<key>    "k8s:enc:aescbc:v1:key1:" (aesgcm, secretbox the same);
//                                 KMS "k8s:enc:kms:v1:<name>:" → encrypted:kms:<name>,
//                                 "k8s:enc:kms:v2:<name>:" → encrypted:kmsv2:<name>
//   json                          a JSON object ('{' after any whitespace)
//   other                         anything else
// The resource is the key's prefix as the snapshot inspector counts it
// (backup/inspect.ts resourceOf), less "/registry/": "secrets", "deployments",
// "services/specs", "apiregistration.k8s.io/apiservices".
//
// The keyspace is read in pages of `pageSize` keys, all at the revision of
// the first page, so a large one is held in memory a page at a time and the
// counts are one consistent snapshot.

import { prefixEnd, type EtcdClient } from '../client/etcd/etcdClient';
import { resourceOf } from '../backup/inspect';

export const REGISTRY_PREFIX = '/registry/';
export const DEFAULT_PAGE_SIZE = 500;

const PROTOBUF_MAGIC = Buffer.from('k8s\u0000', 'latin1');
const ENCRYPTED = /^k8s:enc:([a-z0-9]+):(v[0-9]+):([^:]*):/;

export type Encoding = 'protobuf' | 'json' | 'other' | `encrypted:${string}`;

export interface StorageCensus {
  /** The etcd revision the counts are of. */
  revision: bigint;
  /** Keys counted (those of a resource). */
  total: number;
  /** resource → encoding → count, both sorted by name. */
  resources: Record<string, Record<string, number>>;
}

/** The encoding of one stored value. */
export function classifyValue(value: Uint8Array): Encoding {
  const buf = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (buf.subarray(0, PROTOBUF_MAGIC.length).equals(PROTOBUF_MAGIC)) return 'protobuf';
  const head = buf.subarray(0, 256).toString('latin1');
  const enc = ENCRYPTED.exec(head);
  if (enc) {
    const [, provider, version, key] = enc;
    return `encrypted:${provider === 'kms' && version !== 'v1' ? `kms${version}` : provider}:${key}`;
  }
  if (/^\s*\{/.test(head)) return 'json';
  return 'other';
}

/** The resource a /registry key belongs to ("secrets", "services/specs"), or undefined for other keys. */
export function censusResource(key: string): string | undefined {
  return resourceOf(key)?.slice(REGISTRY_PREFIX.length);
}

/** Adds one key and its value to the counts (mutates them). */
export function countKey(counts: Map<string, Map<string, number>>, key: string, value: Uint8Array): boolean {
  const resource = censusResource(key);
  if (resource === undefined) return false;
  const byEncoding = counts.get(resource) ?? new Map<string, number>();
  const encoding = classifyValue(value);
  byEncoding.set(encoding, (byEncoding.get(encoding) ?? 0) + 1);
  counts.set(resource, byEncoding);
  return true;
}

const sortedRecord = <V>(m: Map<string, V>): Record<string, V> => Object.fromEntries([...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** Ranges over /registry/ a page at a time and counts every key's encoding. */
export async function storageCensus(client: Pick<EtcdClient, 'range'>, opts: { pageSize?: number; prefix?: string } = {}): Promise<StorageCensus> {
  const prefix = opts.prefix ?? REGISTRY_PREFIX;
  const pageSize = opts.pageSize ?? DEFAULT_PAGE_SIZE;
  const end = prefixEnd(prefix);
  const counts = new Map<string, Map<string, number>>();
  let total = 0;
  let start: Buffer = Buffer.from(prefix);
  let revision: bigint | undefined;
  for (;;) {
    const page = await client.range({ key: start, rangeEnd: end, limit: pageSize, revision });
    revision ??= page.revision;
    for (const kv of page.kvs) if (countKey(counts, kv.key.toString('utf8'), kv.value)) total++;
    if (!page.more || page.kvs.length === 0) break;
    start = Buffer.concat([page.kvs[page.kvs.length - 1]!.key, Buffer.from([0])]);
  }
  return { revision: revision ?? 0n, total, resources: sortedRecord(new Map([...counts].map(([r, m]) => [r, sortedRecord(m)]))) };
}
