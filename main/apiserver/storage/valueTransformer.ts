// Encryption at rest as the etcd store sees it; main/apiserver/encryption
// implements it from --encryption-provider-config.

/**
 * Turns stored bytes into the bytes written to etcd and back (encryption at
 * rest). `key` is the object's etcd key (authenticated data for AEAD
 * providers). fromStorage reports `stale` when the value should be rewritten
 * (not written with the current first provider).
 */
export interface ValueTransformer {
  toStorage(data: Uint8Array, key: string): Uint8Array;
  fromStorage(data: Uint8Array, key: string): { data: Uint8Array; stale: boolean };
}
