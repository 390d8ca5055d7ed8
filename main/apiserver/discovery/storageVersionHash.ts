// storageVersionHash as kube-apiserver publishes it in discovery: base64 of
// the first 8 bytes of sha256("<group>/<version>/<kind>") of the storage
// version (k8s.io/apiserver pkg/endpoints/discovery/storageversionhash.go).
// Migrators compare it to notice a changed storage version.

import { createHash } from 'node:crypto';

export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}
