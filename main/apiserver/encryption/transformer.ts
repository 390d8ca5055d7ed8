// Encryption at rest for the whole store: the ServerEnv's ValueTransformer.
// Each etcd key belongs to one served resource (the longest storage prefix
// that holds it); that resource's transformer is kube's choice
// (transformerFromOverrides): its own group/resource entry, else
// "<group>.*" ("*.apps", "*." for core), else "*.*", else identity — which
// still refuses encrypted bytes, so data encrypted for a resource that was
// later dropped from the file fails loudly instead of decoding garbage.
// A resource named in several entries gets all their providers, in order.

import type { ResourceDef } from '../registry/rest/resourceDef';
import type { ValueTransformer } from '../storage/valueTransformer';
import { parseGroupResource, type EncryptionConfig, type ProviderConfig } from './config';
import {
  AESCBC_PREFIX,
  AESGCM_PREFIX,
  cbcTransformer,
  gcmTransformer,
  identityTransformer,
  prefixTransformers,
  SECRETBOX_PREFIX,
  secretboxTransformer,
  type PrefixTransformer,
  type Transformer,
} from './providers';

const utf8 = (s: string): Uint8Array => Buffer.from(s, 'utf8');

function providerTransformer(p: ProviderConfig): PrefixTransformer {
  if (p.kind === 'identity') return { prefix: new Uint8Array(0), transformer: identityTransformer };
  const make = p.kind === 'aescbc' ? cbcTransformer : p.kind === 'aesgcm' ? gcmTransformer : secretboxTransformer;
  const prefix = p.kind === 'aescbc' ? AESCBC_PREFIX : p.kind === 'aesgcm' ? AESGCM_PREFIX : SECRETBOX_PREFIX;
  const keys = p.keys.map((k) => ({ prefix: utf8(`${k.name}:`), transformer: make(Buffer.from(k.secret, 'base64')) }));
  const noKey = p.kind === 'secretbox' ? 'no matching key was found for the provided Secretbox transformer' : 'no matching key was found for the provided AES transformer';
  return { prefix: utf8(prefix), transformer: prefixTransformers(noKey, keys) };
}

/** group/resource ("secrets", "*.apps", "*.*") → its transformer, as config.go builds the overrides. */
export function transformerOverrides(cfg: EncryptionConfig): Map<string, Transformer> {
  const lists = new Map<string, PrefixTransformer[]>();
  for (const rc of cfg.resources) {
    const ts = rc.providers.map(providerTransformer);
    for (const r of rc.resources) {
      const gr = parseGroupResource(r);
      const id = `${gr.group}/${gr.resource}`;
      lists.set(id, [...(lists.get(id) ?? []), ...ts]);
    }
  }
  return new Map([...lists].map(([id, ts]) => [id, prefixTransformers('no matching prefix found', ts)]));
}

/** transformerFromOverrides: exact, then the group's wildcard, then *.*, then identity. */
export function transformerFor(overrides: Map<string, Transformer>, group: string, resource: string): Transformer {
  return overrides.get(`${group}/${resource}`) ?? overrides.get(`${group}/*`) ?? overrides.get('*/*') ?? identityTransformer;
}

/**
 * The store-wide transformer: `resources()` is read once per new key prefix
 * (the served set is fixed once the server runs) and each key's choice is
 * cached by the directory part of its key.
 */
export function encryptionTransformer(cfg: EncryptionConfig, etcdPrefix: string, resources: () => ResourceDef[]): ValueTransformer {
  const overrides = transformerOverrides(cfg);
  let table: { prefix: string; t: Transformer }[] | undefined;
  const byDir = new Map<string, Transformer>();
  const resolve = (key: string): Transformer => {
    const dir = key.slice(0, key.lastIndexOf('/') + 1);
    let t = byDir.get(dir);
    if (t) return t;
    table ??= resources()
      .filter((d) => !d.virtualCreate)
      .map((d) => ({ prefix: `${etcdPrefix}/${d.storagePrefix}/`, t: transformerFor(overrides, d.group, d.resource) }))
      .sort((a, b) => b.prefix.length - a.prefix.length);
    t = table.find((e) => key.startsWith(e.prefix))?.t ?? identityTransformer;
    byDir.set(dir, t);
    return t;
  };
  return {
    toStorage: (data, key) => resolve(key).toStorage(data, utf8(key)),
    fromStorage: (data, key) => resolve(key).fromStorage(data, utf8(key)),
  };
}
