// Request builders for the MVCC tests: strings in, etcd-shaped requests out.

import {
  CompareResult,
  CompareTarget,
  MvccStore,
  SortOrder,
  SortTarget,
  type Compare,
  type DeleteRangeRequest,
  type KeyValue,
  type PutRequest,
  type RangeRequest,
  type RequestOp,
  type TxnRequest,
} from '../../../../main/etcd/mvcc/index';

export const b = (s: string): Uint8Array => new TextEncoder().encode(s);
export const s = (u: Uint8Array): string => new TextDecoder().decode(u);

export function rangeReq(key: string, over: Partial<RangeRequest> & { end?: string } = {}): RangeRequest {
  const { end, ...rest } = over;
  return {
    key: b(key),
    rangeEnd: b(end ?? ''),
    limit: 0,
    revision: 0,
    sortOrder: SortOrder.None,
    sortTarget: SortTarget.Key,
    serializable: false,
    keysOnly: false,
    countOnly: false,
    minModRevision: 0,
    maxModRevision: 0,
    minCreateRevision: 0,
    maxCreateRevision: 0,
    ...rest,
  };
}

export function putReq(key: string, value: string, over: Partial<PutRequest> = {}): PutRequest {
  return { key: b(key), value: b(value), lease: 0n, prevKv: false, ignoreValue: false, ignoreLease: false, ...over };
}

export function delReq(key: string, end = '', over: Partial<DeleteRangeRequest> = {}): DeleteRangeRequest {
  return { key: b(key), rangeEnd: b(end), prevKv: false, ...over };
}

export function txnReq(compare: Compare[], success: RequestOp[], failure: RequestOp[] = []): TxnRequest {
  return { compare, success, failure };
}

type CompareValue = { version?: number; create?: number; mod?: number; value?: string; lease?: bigint };

export function cmp(
  key: string,
  target: CompareTarget,
  result: CompareResult,
  v: CompareValue,
  end = '',
): Compare {
  return {
    key: b(key),
    rangeEnd: b(end),
    target,
    result,
    version: v.version ?? 0,
    createRevision: v.create ?? 0,
    modRevision: v.mod ?? 0,
    value: b(v.value ?? ''),
    lease: v.lease ?? 0n,
  };
}

export const op = {
  put: (key: string, value: string, over: Partial<PutRequest> = {}): RequestOp => ({ put: putReq(key, value, over) }),
  del: (key: string, end = ''): RequestOp => ({ deleteRange: delReq(key, end) }),
  get: (key: string, over: Partial<RangeRequest> & { end?: string } = {}): RequestOp => ({ range: rangeReq(key, over) }),
  txn: (t: TxnRequest): RequestOp => ({ txn: t }),
};

/** A compact view of a KeyValue for table assertions. */
export function kvView(kv: KeyValue): { key: string; value: string; create: number; mod: number; version: number; lease?: bigint } {
  const v: ReturnType<typeof kvView> = {
    key: s(kv.key),
    value: s(kv.value),
    create: kv.createRevision,
    mod: kv.modRevision,
    version: kv.version,
  };
  if (kv.lease !== 0n) v.lease = kv.lease;
  return v;
}

/** Keys and values currently visible from "" onwards. */
export function dump(store: MvccStore, revision = 0): string[] {
  return store.range(rangeReq('\0', { end: '\0', revision })).kvs.map((kv) => `${s(kv.key)}=${s(kv.value)}`);
}

/** A store fed the given writes in order. */
export function storeWith(...writes: Array<[string, string] | string>): MvccStore {
  const st = new MvccStore();
  for (const w of writes) {
    if (typeof w === 'string') st.deleteRange(delReq(w));
    else st.put(putReq(w[0], w[1]));
  }
  return st;
}
