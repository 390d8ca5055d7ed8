// The MVCC key-value store: revisions, key index, range/put/delete/txn,
// compaction, hashes and snapshots (see store.ts), plus the request checks
// the gRPC layer runs before proposing (requestChecks.ts).

export * from './types';
export { MvccStore, type RevisionEvents } from './store';
export type { LeaseHooks } from './storeState';
export type { HashKVResult } from './hashKV';
export { checkDeleteRequest, checkPutRequest, checkRangeRequest, checkTxnRequest } from './requestChecks';
