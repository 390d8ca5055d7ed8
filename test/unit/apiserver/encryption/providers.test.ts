import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import {
  cbcTransformer,
  gcmTransformer,
  identityTransformer,
  prefixTransformers,
  secretboxTransformer,
  type Transformer,
} from '../../../../main/apiserver/encryption/providers';

const key32 = Buffer.alloc(32, 7);
const key16 = Buffer.alloc(16, 3);
const ad = Buffer.from('/registry/secrets/default/s1');
const plain = Buffer.from('k8s\u0000 some protobuf bytes of a Secret, long enough to span blocks');

describe('providers round trip and layout', () => {
  const cases: { name: string; t: Transformer; overhead: (n: number) => number }[] = [
    { name: 'aescbc 256', t: cbcTransformer(key32), overhead: (n) => 16 + (n + 16 - (n % 16)) },
    { name: 'aescbc 128', t: cbcTransformer(key16), overhead: (n) => 16 + (n + 16 - (n % 16)) },
    { name: 'aesgcm 256', t: gcmTransformer(key32), overhead: (n) => 12 + n + 16 },
    { name: 'secretbox', t: secretboxTransformer(key32), overhead: (n) => 24 + 16 + n },
  ];
  for (const c of cases) {
    it(`${c.name}: reads back what it wrote, at kube's size, with a fresh IV each write`, () => {
      const a = c.t.toStorage(plain, ad);
      const b = c.t.toStorage(plain, ad);
      expect(a.length).toBe(c.overhead(plain.length));
      expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false);
      expect(Buffer.from(a).includes(Buffer.from('protobuf'))).toBe(false);
      expect(Buffer.from(c.t.fromStorage(a, ad).data).equals(plain)).toBe(true);
    });
  }

  it('aescbc output is IV + CBC with PKCS#7, as openssl reads it', () => {
    const out = Buffer.from(cbcTransformer(key32).toStorage(plain, ad));
    const dir = mkdtempSync(join(tmpdir(), 'cbc-'));
    try {
      writeFileSync(join(dir, 'c'), out.subarray(16));
      const got = execFileSync('openssl', ['enc', '-d', '-aes-256-cbc', '-K', key32.toString('hex'), '-iv', out.subarray(0, 16).toString('hex'), '-in', join(dir, 'c')]);
      expect(got.equals(plain)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('secretbox output is nonce + NaCl box', () => {
    const out = secretboxTransformer(key32).toStorage(plain, ad);
    const opened = nacl.secretbox.open(out.subarray(24), out.subarray(0, 24), key32);
    expect(opened && Buffer.from(opened).equals(plain)).toBe(true);
  });

  it('aesgcm binds the value to its etcd key (authenticated data)', () => {
    const t = gcmTransformer(key32);
    const out = t.toStorage(plain, ad);
    expect(() => t.fromStorage(out, Buffer.from('/registry/secrets/default/other'))).toThrow('cipher: message authentication failed');
  });
});

describe('read errors carry kube messages', () => {
  const other = Buffer.alloc(32, 9);
  const cases: { name: string; run: () => unknown; want: string }[] = [
    { name: 'aescbc short', run: () => cbcTransformer(key32).fromStorage(Buffer.alloc(5), ad), want: 'the stored data was shorter than the required size' },
    { name: 'aescbc not block aligned', run: () => cbcTransformer(key32).fromStorage(Buffer.alloc(20), ad), want: 'the stored data is not a multiple of the block size' },
    { name: 'aesgcm wrong key', run: () => gcmTransformer(other).fromStorage(gcmTransformer(key32).toStorage(plain, ad), ad), want: 'cipher: message authentication failed' },
    { name: 'secretbox wrong key', run: () => secretboxTransformer(other).fromStorage(secretboxTransformer(key32).toStorage(plain, ad), ad), want: 'output array was not large enough for encryption' },
    { name: 'secretbox short', run: () => secretboxTransformer(key32).fromStorage(Buffer.alloc(10), ad), want: 'the stored data was shorter than the required size' },
    { name: 'identity on encrypted data', run: () => identityTransformer.fromStorage(Buffer.from('k8s:enc:aescbc:v1:k:xx'), ad), want: 'identity transformer tried to read encrypted data' },
  ];
  for (const c of cases) it(c.name, () => expect(c.run).toThrow(c.want));

  it('aescbc with a wrong key fails on the padding (or, rarely, yields other bytes), never the plaintext', () => {
    const enc = cbcTransformer(key32).toStorage(plain, ad);
    let msg = '';
    try {
      const r = cbcTransformer(other).fromStorage(enc, ad);
      expect(Buffer.from(r.data).equals(plain)).toBe(false);
    } catch (err) {
      msg = (err as Error).message;
    }
    if (msg) expect(['invalid padding on input', 'invalid PKCS7 data (empty or not padded)']).toContain(msg);
  });
});

describe('prefix transformers', () => {
  const p = (s: string) => Buffer.from(s);
  const k1 = { prefix: p('k1:'), transformer: cbcTransformer(key32) };
  const k2 = { prefix: p('k2:'), transformer: cbcTransformer(Buffer.alloc(32, 1)) };
  const aes = (keys: typeof k1[]) => ({ prefix: p('k8s:enc:aescbc:v1:'), transformer: prefixTransformers('no matching key was found for the provided AES transformer', keys) });
  const id = { prefix: new Uint8Array(0), transformer: identityTransformer };

  it('the first entry writes; a value read with a later one is stale', () => {
    const rotated = prefixTransformers('no matching prefix found', [aes([k2, k1])]);
    const before = prefixTransformers('no matching prefix found', [aes([k1])]).toStorage(plain, ad);
    expect(Buffer.from(before).subarray(0, 21).toString()).toBe('k8s:enc:aescbc:v1:k1:');
    const r = rotated.fromStorage(before, ad);
    expect(Buffer.from(r.data).equals(plain)).toBe(true);
    expect(r.stale).toBe(true);
    const after = rotated.toStorage(plain, ad);
    expect(Buffer.from(after).subarray(0, 21).toString()).toBe('k8s:enc:aescbc:v1:k2:');
    expect(rotated.fromStorage(after, ad).stale).toBe(false);
  });

  it('identity first reads plain data (not stale) and passes encrypted data on (stale)', () => {
    const t = prefixTransformers('no matching prefix found', [id, aes([k1])]);
    expect(t.fromStorage(plain, ad)).toEqual({ data: plain, stale: false });
    const enc = prefixTransformers('x', [aes([k1])]).toStorage(plain, ad);
    expect(t.fromStorage(enc, ad).stale).toBe(true);
    expect(Buffer.from(t.toStorage(plain, ad)).equals(plain)).toBe(true);
  });

  it('identity later reads old plain values, stale', () => {
    const t = prefixTransformers('no matching prefix found', [aes([k1]), id]);
    expect(t.fromStorage(plain, ad).stale).toBe(true);
  });

  it('no key, no provider: kube errors', () => {
    const only = prefixTransformers('no matching prefix found', [aes([k1])]);
    expect(() => only.fromStorage(plain, ad)).toThrow('no matching prefix found');
    expect(() => only.fromStorage(p('k8s:enc:aescbc:v1:zz:abc'), ad)).toThrow('no matching key was found for the provided AES transformer');
  });
});
