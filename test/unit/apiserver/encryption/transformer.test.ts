import { describe, expect, it } from 'vitest';
import { parseEncryptionConfig } from '../../../../main/apiserver/encryption/config';
import { encryptionTransformer } from '../../../../main/apiserver/encryption/transformer';
import type { ResourceDef } from '../../../../main/apiserver/registry/rest/resourceDef';

const k = (n: number) => Buffer.alloc(32, n).toString('base64');
const def = (group: string, resource: string, storagePrefix = resource) => ({ group, resource, storagePrefix }) as unknown as ResourceDef;
const defs = [def('', 'secrets'), def('', 'configmaps'), def('', 'pods'), def('apps', 'deployments'), def('', 'services', 'services/specs'), def('coordination.k8s.io', 'leases')];
const cfg = (resources: string, providers = `[{aescbc: {keys: [{name: key1, secret: ${k(1)}}]}}, {identity: {}}]`) =>
  parseEncryptionConfig(`apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: ${resources}\n  providers: ${providers}\n`);
const data = Buffer.from('k8s\u0000payload');

function prefixOf(t: ReturnType<typeof encryptionTransformer>, key: string): string {
  const out = Buffer.from(t.toStorage(data, key));
  return out.equals(data) ? 'plain' : out.subarray(0, out.indexOf(':', 'k8s:enc:aescbc:v1:'.length) + 1).toString();
}

describe('encryption transformer per etcd key', () => {
  const cases: { name: string; resources: string; want: Record<string, string> }[] = [
    { name: 'secrets only', resources: '[secrets]', want: { '/registry/secrets/default/s1': 'k8s:enc:aescbc:v1:key1:', '/registry/configmaps/default/c': 'plain', '/registry/pods/default/p': 'plain' } },
    { name: 'core wildcard', resources: '["*."]', want: { '/registry/secrets/ns/s': 'k8s:enc:aescbc:v1:key1:', '/registry/services/specs/default/kubernetes': 'k8s:enc:aescbc:v1:key1:', '/registry/deployments/default/d': 'plain' } },
    { name: 'group wildcard', resources: '["*.apps"]', want: { '/registry/deployments/default/d': 'k8s:enc:aescbc:v1:key1:', '/registry/secrets/default/s': 'plain' } },
    // Keys of no served resource (the service IP range allocator) stay plain, as kube refuses to encrypt them.
    { name: 'everything', resources: '["*.*"]', want: { '/registry/leases/kube-system/l': 'k8s:enc:aescbc:v1:key1:', '/registry/pods/default/p': 'k8s:enc:aescbc:v1:key1:', '/registry/ranges/serviceips': 'plain' } },
    { name: 'group resource', resources: '["leases.coordination.k8s.io"]', want: { '/registry/leases/kube-system/l': 'k8s:enc:aescbc:v1:key1:', '/registry/secrets/default/s': 'plain' } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const t = encryptionTransformer(cfg(c.resources), '/registry', () => defs);
      const got = Object.fromEntries(Object.keys(c.want).map((key) => [key, prefixOf(t, key)]));
      expect(got).toEqual(c.want);
    });
  }

  it('reads back per key; an unconfigured resource refuses encrypted bytes', () => {
    const t = encryptionTransformer(cfg('[secrets]'), '/registry', () => defs);
    const enc = t.toStorage(data, '/registry/secrets/default/s1');
    expect(Buffer.from(t.fromStorage(enc, '/registry/secrets/default/s1').data).equals(data)).toBe(true);
    expect(() => t.fromStorage(enc, '/registry/configmaps/default/c')).toThrow('identity transformer tried to read encrypted data');
  });

  it('a resource in two entries gets both provider lists (the first entry writes)', () => {
    const two = parseEncryptionConfig(`apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
- resources: [secrets]
  providers: [{secretbox: {keys: [{name: sb, secret: ${k(2)}}]}}]
- resources: [secrets]
  providers: [{aescbc: {keys: [{name: key1, secret: ${k(1)}}]}}]
`);
    const old = encryptionTransformer(cfg('[secrets]'), '/registry', () => defs).toStorage(data, '/registry/secrets/a/b');
    const t = encryptionTransformer(two, '/registry', () => defs);
    expect(t.fromStorage(old, '/registry/secrets/a/b').stale).toBe(true);
    expect(Buffer.from(t.toStorage(data, '/registry/secrets/a/b')).subarray(0, 24).toString()).toBe('k8s:enc:secretbox:v1:sb:');
  });

  it('a wrong key for the stored key name fails with the cipher error', () => {
    const enc = encryptionTransformer(cfg('[secrets]'), '/registry', () => defs).toStorage(data, '/registry/secrets/a/b');
    const wrong = encryptionTransformer(cfg('[secrets]', `[{aesgcm: {keys: [{name: key1, secret: ${k(5)}}]}}, {aescbc: {keys: [{name: key1, secret: ${k(9)}}]}}]`), '/registry', () => defs);
    let msg = '';
    try {
      wrong.fromStorage(enc, '/registry/secrets/a/b');
    } catch (err) {
      msg = (err as Error).message;
    }
    // CBC with the wrong key fails on padding but for 1 in ~256 keys; then the bytes differ.
    expect(['invalid padding on input', 'invalid PKCS7 data (empty or not padded)', '']).toContain(msg);
  });

  // What a StorageVersionMigration relies on: a value written before encryption was
  // turned on reads as stale under every encrypting provider, so a no-op update rewrites it.
  for (const provider of ['aescbc', 'aesgcm', 'secretbox']) {
    it(`${provider} first: a plain value reads back, stale; what it writes is not`, () => {
      const t = encryptionTransformer(cfg('[secrets]', `[{${provider}: {keys: [{name: key1, secret: ${k(3)}}]}}, {identity: {}}]`), '/registry', () => defs);
      const key = '/registry/secrets/default/s1';
      const r = t.fromStorage(data, key);
      expect({ same: Buffer.from(r.data).equals(data), stale: r.stale }).toEqual({ same: true, stale: true });
      const enc = t.toStorage(data, key);
      expect(Buffer.from(enc).subarray(0, `k8s:enc:${provider}:v1:key1:`.length).toString()).toBe(`k8s:enc:${provider}:v1:key1:`);
      expect(t.fromStorage(enc, key).stale).toBe(false);
    });
  }
});
