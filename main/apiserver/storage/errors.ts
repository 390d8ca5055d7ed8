// StorageError values with kube's wording (k8s.io/apiserver pkg/storage/errors.go).
// The message is Go's StorageError.Error() — "StorageError: invalid object,
// Code: 4, Key: /registry/..., ResourceVersion: 0, AdditionalErrorMsg: ..." —
// because kube's REST layer embeds that text in Conflict messages
// ("Operation cannot be fulfilled on pods \"x\": StorageError: invalid object, ...").
// Expired, TooLarge and Initializing carry the text of the Status they become.

import { StorageError, type StorageErrorCode } from './interface';

/** Go's numeric codes and their texts (errCodeToMessage). */
const GO_CODES: Partial<Record<StorageErrorCode, [number, string]>> = {
  KeyNotFound: [1, 'key not found'],
  KeyExists: [2, 'key exists'],
  ResourceVersionConflicts: [3, 'resource version conflicts'],
  InvalidObj: [4, 'invalid object'],
  Unreachable: [5, 'server unreachable'],
};

function goStorageError(code: StorageErrorCode, key: string, rv: bigint, extra = ''): StorageError {
  const [n, text] = GO_CODES[code]!;
  return new StorageError(code, key, `StorageError: ${text}, Code: ${n}, Key: ${key}, ResourceVersion: ${rv}, AdditionalErrorMsg: ${extra}`);
}

export const keyNotFound = (key: string, rv = 0n): StorageError => goStorageError('KeyNotFound', key, rv);
export const keyExists = (key: string, rv = 0n): StorageError => goStorageError('KeyExists', key, rv);
export const invalidObj = (key: string, why: string): StorageError => goStorageError('InvalidObj', key, 0n, why);
export const unreachable = (key: string, why: string): StorageError => goStorageError('Unreachable', key, 0n, why);

/** A precondition that does not hold against the stored object (storage.Preconditions.Check). */
export function checkPreconditions(key: string, pre: { uid?: string; resourceVersion?: string } | undefined, current: { metadata: { uid?: string; resourceVersion?: string } }): void {
  if (!pre) return;
  const uid = current.metadata.uid ?? '';
  if (pre.uid !== undefined && pre.uid !== uid) {
    throw invalidObj(key, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${uid}`);
  }
  const rv = current.metadata.resourceVersion ?? '';
  if (pre.resourceVersion !== undefined && pre.resourceVersion !== rv) {
    // kube returns InvalidObj here too; the code says which precondition failed.
    const e = goStorageError('InvalidObj', key, 0n, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${rv}`);
    throw new StorageError('ResourceVersionConflicts', key, e.message);
  }
}

/** 504 Timeout "Too large resource version: N, current: M" (NewTooLargeResourceVersionError). */
export function tooLargeResourceVersion(key: string, requested: bigint, current: bigint): StorageError {
  return new StorageError('ResourceVersionTooLarge', key, `Too large resource version: ${requested}, current: ${current}`, { requested, current });
}

/** 410 from the watch cache: "too old resource version: N (oldest-1)". */
export function tooOldResourceVersion(key: string, requested: bigint, oldest: bigint): StorageError {
  return new StorageError('Expired', key, `too old resource version: ${requested} (${oldest})`, { requested, oldest });
}

/** 410 from etcd for a list at a compacted revision (etcd3 store's interpretListError). */
export const LIST_EXPIRED_MESSAGE = 'The resourceVersion for the provided list is too old.';
/** 410 from etcd for a watch from a compacted revision (etcd3 watcher). */
export const WATCH_EXPIRED_MESSAGE = 'The resourceVersion for the provided watch is too old.';
/** 410 for a continue token whose revision was compacted (handleCompactedErrorForPaging). */
export const CONTINUE_EXPIRED_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/** 429 "storage is (re)initializing" until the cache's first list completed. */
export const initializing = (key: string): StorageError => new StorageError('Initializing', key, 'storage is (re)initializing');

/** The request's resourceVersion as a revision; "" and undefined are 0n. */
export function parseResourceVersion(rv: string | undefined): bigint {
  if (rv === undefined || rv === '') return 0n;
  if (!/^\d+$/.test(rv)) throw new StorageError('InvalidError', '', `invalid resource version "${rv}"`);
  return BigInt(rv);
}
