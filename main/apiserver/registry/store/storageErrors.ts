// StorageError → kube's Status, naming the resource (storage does not know
// it): k8s.io/apiserver pkg/registry/generic/registry/storage_factory's
// InterpretGetError / InterpretCreateError / InterpretUpdateError /
// InterpretDeleteError and the watch cache's errors.

import {
  alreadyExists,
  badRequest,
  conflict,
  expired,
  failure,
  notFound,
  qualifiedName,
  StatusError,
  tooLargeResourceVersion,
  tooManyRequests,
  type QualifiedResource,
} from '../../api/status';
import { StorageError } from '../../storage/interface';

export type StorageOp = 'get' | 'list' | 'create' | 'update' | 'delete' | 'watch';

export function interpretStorageError(err: unknown, qr: QualifiedResource, name: string, op: StorageOp): unknown {
  if (!(err instanceof StorageError)) return err;
  switch (err.code) {
    case 'KeyNotFound':
      return notFound(qr, name);
    case 'KeyExists':
      return op === 'create' ? alreadyExists(qr, name) : conflict(qr, name, err.message);
    case 'ResourceVersionConflicts':
    case 'InvalidObj':
      return conflict(qr, name, err.message);
    case 'ResourceVersionTooLarge':
      return tooLargeResourceVersion(err.revisions?.requested ?? 0n, err.revisions?.current ?? 0n);
    case 'Expired':
      return expired(err.message);
    case 'Initializing':
      return tooManyRequests(err.message, 1);
    case 'InvalidError':
      return badRequest(err.message);
    case 'Unreachable':
      return serverTimeout(qr, op);
  }
  return err;
}

/** 504 NewServerTimeout: "The <op> operation against <resource> could not be completed at this time, please try again." */
export function serverTimeout(qr: QualifiedResource, op: string): StatusError {
  return failure(504, 'Timeout', `The ${op} operation against ${qualifiedName(qr)} could not be completed at this time, please try again.`, {
    group: qr.group || undefined,
    kind: qr.resource,
    retryAfterSeconds: 2,
  });
}

/** Runs a storage call and rethrows its StorageError as the Status kube would send. */
export async function storageCall<T>(qr: QualifiedResource, name: string, op: StorageOp, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw interpretStorageError(err, qr, name, op);
  }
}
