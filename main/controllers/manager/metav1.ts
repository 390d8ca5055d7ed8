// The pieces of kube's apimachinery metav1 that the Deployment and ReplicaSet
// controllers both write: the controller owner reference they stamp on what
// they create, and the timestamp form of the conditions and status they set.

import type { OwnerReference } from './types';

/** metav1.NewControllerRef: the owner reference with controller and blockOwnerDeletion set. */
export function controllerRef(owner: { metadata: { name?: string; uid?: string } }, apiVersion: string, kind: string): OwnerReference {
  return { apiVersion, kind, name: owner.metadata.name!, uid: owner.metadata.uid!, controller: true, blockOwnerDeletion: true };
}

/** metav1.Time's wire form: RFC 3339 at second precision. */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
