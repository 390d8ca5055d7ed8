// The etcd messages as the client hands them to its callers (64-bit fields as
// bigint, keys and values as Buffers): what EtcdClient's methods take and
// return (etcdClient.ts) and what the hand-written wire codec reads and
// writes (etcdWire.ts).

/** mvccpb.KeyValue with 64-bit fields as bigint. */
export interface KeyValue {
  key: Buffer;
  value: Buffer;
  createRevision: bigint;
  modRevision: bigint;
  version: bigint;
  lease: bigint;
}

export interface RangeRequest {
  key: Buffer | string;
  rangeEnd?: Buffer | string;
  limit?: number;
  revision?: bigint;
  countOnly?: boolean;
  keysOnly?: boolean;
}

export interface RangeResult {
  revision: bigint;
  kvs: KeyValue[];
  more: boolean;
  count: bigint;
}

export type Op =
  | { put: { key: string; value: Uint8Array; lease?: bigint } }
  /** rangeEnd as in RangeRequest: absent for the one key, prefixEnd(p) for every key under p. */
  | { deleteRange: { key: string; rangeEnd?: Buffer | string } }
  | { range: RangeRequest };

export interface TxnResult {
  revision: bigint;
  succeeded: boolean;
  /** One per op of the branch that ran; ranges give their kvs. */
  responses: { kvs?: KeyValue[] }[];
}
