// The key-value requests and results as the store and the server see them.
// They carry the same fields as etcdserverpb's messages (same meanings, same
// zero values), in camelCase with native types: keys and values are bytes,
// revisions and counts are numbers (they stay far below 2^53), lease ids are
// bigint (64-bit, server-chosen ids use the top bits). The gRPC layer maps
// these to and from the wire types; the server encodes them into Raft entries.

export type Revision = number;
export type LeaseId = bigint;

/** mvccpb.KeyValue. A deleted key in an event carries only key and modRevision. */
export interface KeyValue {
  key: Uint8Array;
  createRevision: Revision;
  modRevision: Revision;
  /** Modifications since creation: 1 on create; 0 for a deleted key. */
  version: number;
  value: Uint8Array;
  lease: LeaseId;
}

export enum SortOrder {
  None = 0,
  Ascend = 1,
  Descend = 2,
}

export enum SortTarget {
  Key = 0,
  Version = 1,
  Create = 2,
  Mod = 3,
  Value = 4,
}

export interface RangeRequest {
  key: Uint8Array;
  /** Empty: just `key`. "\0": every key ≥ key. Otherwise [key, rangeEnd). */
  rangeEnd: Uint8Array;
  limit: number;
  /** 0: the current revision. */
  revision: Revision;
  sortOrder: SortOrder;
  sortTarget: SortTarget;
  serializable: boolean;
  keysOnly: boolean;
  countOnly: boolean;
  minModRevision: Revision;
  maxModRevision: Revision;
  minCreateRevision: Revision;
  maxCreateRevision: Revision;
}

export interface RangeResult {
  kvs: KeyValue[];
  more: boolean;
  /** Keys in the range before limit and before the min/max filters. */
  count: number;
  /** The revision the read was served at (goes into header.revision). */
  revision: Revision;
}

export interface PutRequest {
  key: Uint8Array;
  value: Uint8Array;
  /** 0n: no lease. */
  lease: LeaseId;
  prevKv: boolean;
  ignoreValue: boolean;
  ignoreLease: boolean;
}

export interface PutResult {
  prevKv?: KeyValue;
  /** The store revision after the write (header.revision). */
  revision: Revision;
}

export interface DeleteRangeRequest {
  key: Uint8Array;
  rangeEnd: Uint8Array;
  prevKv: boolean;
}

export interface DeleteRangeResult {
  deleted: number;
  prevKvs: KeyValue[];
  revision: Revision;
}

export enum CompareResult {
  Equal = 0,
  Greater = 1,
  Less = 2,
  NotEqual = 3,
}

export enum CompareTarget {
  Version = 0,
  Create = 1,
  Mod = 2,
  Value = 3,
  Lease = 4,
}

export interface Compare {
  result: CompareResult;
  target: CompareTarget;
  key: Uint8Array;
  rangeEnd: Uint8Array;
  /** Exactly the field that matches `target` is meaningful. */
  version: number;
  createRevision: Revision;
  modRevision: Revision;
  value: Uint8Array;
  lease: LeaseId;
}

export type RequestOp =
  | { range: RangeRequest }
  | { put: PutRequest }
  | { deleteRange: DeleteRangeRequest }
  | { txn: TxnRequest };

export type ResponseOp =
  | { range: RangeResult }
  | { put: PutResult }
  | { deleteRange: DeleteRangeResult }
  | { txn: TxnResult };

export interface TxnRequest {
  compare: Compare[];
  success: RequestOp[];
  failure: RequestOp[];
}

export interface TxnResult {
  succeeded: boolean;
  responses: ResponseOp[];
  revision: Revision;
}

export interface CompactionRequest {
  revision: Revision;
  physical: boolean;
}

export enum EventType {
  Put = 0,
  Delete = 1,
}

/** mvccpb.Event: what one write did to one key. */
export interface MvccEvent {
  type: EventType;
  kv: KeyValue;
  prevKv?: KeyValue;
}
