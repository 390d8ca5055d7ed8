// The etcdserverpb / mvccpb messages as they cross the wire (decoded with
// etcdProtos.ts' ETCD_DECODE, proto-loader's usual options): field names as in
// the .proto (keepCase), enums as numbers, bytes as Buffer, and 64-bit
// integers decoded as decimal strings so member ids above 2^53 keep every bit.
//
// Requests are typed as decoded (`defaults: true`, so every scalar is
// present). Responses are typed as we build them: protobufjs' fromObject
// accepts a number, a decimal string or {low, high, unsigned} for a 64-bit
// field, and leaving a field out leaves it off the wire (proto3 zero value).

/** A decoded int64/uint64: decimal text. */
export type WireLong = string;

/** A 64-bit field on the way out. Numbers only for values below 2^53. */
export type WireLongOut = number | string | { low: number; high: number; unsigned: boolean };

// ---- requests (decoded) -------------------------------------------------

export interface WireRangeRequest {
  key: Buffer;
  range_end: Buffer;
  limit: WireLong;
  revision: WireLong;
  sort_order: number;
  sort_target: number;
  serializable: boolean;
  keys_only: boolean;
  count_only: boolean;
  min_mod_revision: WireLong;
  max_mod_revision: WireLong;
  min_create_revision: WireLong;
  max_create_revision: WireLong;
}

export interface WirePutRequest {
  key: Buffer;
  value: Buffer;
  lease: WireLong;
  prev_kv: boolean;
  ignore_value: boolean;
  ignore_lease: boolean;
}

export interface WireDeleteRangeRequest {
  key: Buffer;
  range_end: Buffer;
  prev_kv: boolean;
}

/** `request` names the oneof member that is set (oneofs: true); undefined for an empty op. */
export interface WireRequestOp {
  request?: 'request_range' | 'request_put' | 'request_delete_range' | 'request_txn';
  request_range?: WireRangeRequest;
  request_put?: WirePutRequest;
  request_delete_range?: WireDeleteRangeRequest;
  request_txn?: WireTxnRequest;
}

export interface WireCompare {
  result: number;
  target: number;
  key: Buffer;
  range_end: Buffer;
  target_union?: 'version' | 'create_revision' | 'mod_revision' | 'value' | 'lease';
  version?: WireLong;
  create_revision?: WireLong;
  mod_revision?: WireLong;
  value?: Buffer;
  lease?: WireLong;
}

export interface WireTxnRequest {
  compare: WireCompare[];
  success: WireRequestOp[];
  failure: WireRequestOp[];
}

export interface WireCompactionRequest {
  revision: WireLong;
  physical: boolean;
}

// ---- responses (built) --------------------------------------------------

export interface WireResponseHeader {
  cluster_id: WireLongOut;
  member_id: WireLongOut;
  /** Left out on Cluster responses, as etcd's ClusterServer does. */
  revision?: WireLongOut;
  raft_term: WireLongOut;
}

export interface WireKeyValue {
  key: Uint8Array;
  create_revision: WireLongOut;
  mod_revision: WireLongOut;
  version: WireLongOut;
  value: Uint8Array;
  lease: WireLongOut;
}

export interface WireRangeResponse {
  header: Partial<WireResponseHeader>;
  kvs: WireKeyValue[];
  more: boolean;
  count: WireLongOut;
}

export interface WirePutResponse {
  header: Partial<WireResponseHeader>;
  prev_kv?: WireKeyValue;
}

export interface WireDeleteRangeResponse {
  header: Partial<WireResponseHeader>;
  deleted: WireLongOut;
  prev_kvs: WireKeyValue[];
}

export type WireResponseOp =
  | { response_range: WireRangeResponse }
  | { response_put: WirePutResponse }
  | { response_delete_range: WireDeleteRangeResponse }
  | { response_txn: WireTxnResponse };

export interface WireTxnResponse {
  header: Partial<WireResponseHeader>;
  succeeded: boolean;
  responses: WireResponseOp[];
}

export interface WireCompactionResponse {
  header: WireResponseHeader;
}

export interface WireMember {
  ID: WireLongOut;
  name: string;
  peerURLs: string[];
  clientURLs: string[];
  isLearner: boolean;
}

export interface WireMemberListResponse {
  header: WireResponseHeader;
  members: WireMember[];
}

export interface WireStatusResponse {
  header: WireResponseHeader;
  version: string;
  dbSize: WireLongOut;
  leader: WireLongOut;
  raftIndex: WireLongOut;
  raftTerm: WireLongOut;
  raftAppliedIndex: WireLongOut;
  errors: string[];
  dbSizeInUse: WireLongOut;
  isLearner: boolean;
}
