// The value transformers of encryption at rest, byte for byte as
// k8s.io/apiserver pkg/storage/value lays them out, so etcd holds what a real
// kube-apiserver would write and either can read the other's data:
//
//   aescbc     k8s:enc:aescbc:v1:<key>:    IV(16) ‖ AES-CBC(data ‖ PKCS#7 padding)
//   aesgcm     k8s:enc:aesgcm:v1:<key>:    nonce(12) ‖ AES-GCM(data) ‖ tag(16), the etcd key as AAD
//   secretbox  k8s:enc:secretbox:v1:<key>: nonce(24) ‖ XSalsa20-Poly1305 box (tag first)
//   identity   (no prefix)                 the data itself; refuses anything starting "k8s:enc:"
//
// Each provider is a prefix transformer over its keys (the key name plus ':'),
// and a resource's providers form another one: the first entry writes, every
// entry reads whatever carries its prefix, and a value read by any entry but
// the first is stale (a write would re-encrypt it). Errors carry kube's texts,
// which is what an operator sees when a key is wrong.

import { createCipheriv, createDecipheriv, randomBytes, type CipherGCMTypes } from 'node:crypto';
import nacl from 'tweetnacl';

/** One transformation of stored bytes (kube's value.Transformer); `ad` is the etcd key. */
export interface Transformer {
  fromStorage(data: Uint8Array, ad: Uint8Array): { data: Uint8Array; stale: boolean };
  toStorage(data: Uint8Array, ad: Uint8Array): Uint8Array;
}

export interface PrefixTransformer {
  prefix: Uint8Array;
  transformer: Transformer;
}

export const AESCBC_PREFIX = 'k8s:enc:aescbc:v1:';
export const AESGCM_PREFIX = 'k8s:enc:aesgcm:v1:';
export const SECRETBOX_PREFIX = 'k8s:enc:secretbox:v1:';
const ENCRYPTED_MARK = Buffer.from('k8s:enc:');

const BLOCK = 16;
const GCM_NONCE = 12;
const GCM_TAG = 16;
const BOX_NONCE = 24;

function startsWith(data: Uint8Array, prefix: Uint8Array): boolean {
  if (data.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (data[i] !== prefix[i]) return false;
  return true;
}

function aesName(key: Uint8Array, mode: 'cbc'): string {
  return `aes-${key.length * 8}-${mode}`;
}

function gcmName(key: Uint8Array): CipherGCMTypes {
  return `aes-${key.length * 8}-gcm` as CipherGCMTypes;
}

export function cbcTransformer(key: Uint8Array): Transformer {
  return {
    fromStorage(data) {
      if (data.length < BLOCK) throw new Error('the stored data was shorter than the required size');
      const iv = data.subarray(0, BLOCK);
      const body = data.subarray(BLOCK);
      if (body.length % BLOCK !== 0) throw new Error('the stored data is not a multiple of the block size');
      const d = createDecipheriv(aesName(key, 'cbc'), key, iv);
      // kube checks the padding itself (and says so in its own words), not the cipher library.
      d.setAutoPadding(false);
      const out = Buffer.concat([d.update(body), d.final()]);
      const pad = out.length > 0 ? out[out.length - 1]! : 0;
      if (pad === 0 || pad > out.length) throw new Error('invalid PKCS7 data (empty or not padded)');
      for (let i = out.length - pad; i < out.length; i++) if (out[i] !== pad) throw new Error('invalid padding on input');
      return { data: out.subarray(0, out.length - pad), stale: false };
    },
    toStorage(data) {
      const iv = randomBytes(BLOCK);
      const c = createCipheriv(aesName(key, 'cbc'), key, iv);
      return Buffer.concat([iv, c.update(data), c.final()]);
    },
  };
}

export function gcmTransformer(key: Uint8Array): Transformer {
  return {
    fromStorage(data, ad) {
      if (data.length < GCM_NONCE) throw new Error('the stored data was shorter than the required size');
      const sealed = data.subarray(GCM_NONCE);
      // Go's Open answers every failure, a short input included, with the same error.
      if (sealed.length < GCM_TAG) throw new Error('cipher: message authentication failed');
      const d = createDecipheriv(gcmName(key), key, data.subarray(0, GCM_NONCE));
      d.setAAD(ad);
      d.setAuthTag(sealed.subarray(sealed.length - GCM_TAG));
      try {
        return { data: Buffer.concat([d.update(sealed.subarray(0, sealed.length - GCM_TAG)), d.final()]), stale: false };
      } catch {
        throw new Error('cipher: message authentication failed');
      }
    },
    toStorage(data, ad) {
      const nonce = randomBytes(GCM_NONCE);
      const c = createCipheriv(gcmName(key), key, nonce);
      c.setAAD(ad);
      const body = Buffer.concat([c.update(data), c.final()]);
      return Buffer.concat([nonce, body, c.getAuthTag()]);
    },
  };
}

export function secretboxTransformer(key: Uint8Array): Transformer {
  return {
    fromStorage(data) {
      if (data.length < nacl.secretbox.overheadLength + BOX_NONCE) throw new Error('the stored data was shorter than the required size');
      const out = nacl.secretbox.open(data.subarray(BOX_NONCE), data.subarray(0, BOX_NONCE), key);
      // kube's wording for a box that does not open (wrong key or tampered data).
      if (!out) throw new Error('output array was not large enough for encryption');
      return { data: out, stale: false };
    },
    toStorage(data) {
      const nonce = randomBytes(BOX_NONCE);
      return Buffer.concat([nonce, nacl.secretbox(data, nonce, key)]);
    },
  };
}

/** identity: plain data both ways, but encrypted data is an error so the next provider may try it. */
export const identityTransformer: Transformer = {
  fromStorage(data) {
    if (startsWith(data, ENCRYPTED_MARK)) throw new Error('identity transformer tried to read encrypted data');
    return { data, stale: false };
  },
  toStorage: (data) => data,
};

/**
 * kube's prefixTransformers: the first transformer whose prefix the data
 * carries reads it (an identity entry, which has no prefix, may pass it on);
 * every failure is kept and reported if nothing reads it; `noMatch` when no
 * prefix matched at all. The first transformer writes.
 */
export function prefixTransformers(noMatch: string, list: PrefixTransformer[]): Transformer {
  if (list.length === 0) throw new Error('prefixTransformers: no transformers');
  return {
    fromStorage(data, ad) {
      const errs: string[] = [];
      for (let i = 0; i < list.length; i++) {
        const t = list[i]!;
        if (!startsWith(data, t.prefix)) continue;
        try {
          const r = t.transformer.fromStorage(data.subarray(t.prefix.length), ad);
          return { data: r.data, stale: r.stale || i !== 0 };
        } catch (err) {
          // A failed identity read (encrypted data) is no error of its own: later entries decide.
          if (t.prefix.length > 0) errs.push(err instanceof Error ? err.message : String(err));
        }
      }
      if (errs.length > 0) throw new Error(aggregate(errs));
      throw new Error(noMatch);
    },
    toStorage(data, ad) {
      const t = list[0]!;
      const out = t.transformer.toStorage(data, ad);
      const buf = new Uint8Array(t.prefix.length + out.length);
      buf.set(t.prefix, 0);
      buf.set(out, t.prefix.length);
      return buf;
    },
  };
}

/** utilerrors.Reduce(NewAggregate(errs)): one error as itself, several as "[a, b]" (duplicates once). */
export function aggregate(errs: string[]): string {
  const unique = [...new Set(errs)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}
