// Who asks the registry store for a write, and where the write reports back
// to its request when there is one: the REST handlers fill these from the
// request, the server's own writes from SYSTEM_APISERVER alone.

import type { UserInfo } from '../../authn/user';
import type { StageRecorder } from '../../server/traceRecorder';

export interface StoreRequest {
  user: UserInfo;
  /** The request's namespace ('' for cluster-scoped or none). */
  namespace: string;
  /** The request's trace; untraced when absent. */
  trace?: StageRecorder;
  /** The request's `Warning: 299` texts and audit annotations; admission adds to them. */
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
}

/** A create or update: the StoreRequest plus what the write itself is. */
export interface WriteRequest extends StoreRequest {
  /** The subresource written through ('' for the object itself). */
  subresource?: string;
  dryRun: boolean;
  fieldManager: string;
  operation: 'Update' | 'Apply';
}

/** The user the server's own writes run as (kube's loopback client user). */
export const SYSTEM_APISERVER: UserInfo = { username: 'system:apiserver', groups: ['system:masters', 'system:authenticated'] };
