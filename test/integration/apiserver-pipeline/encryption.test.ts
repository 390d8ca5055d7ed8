// Encryption at rest on a real `pilothouse apiserver` (ports 30700–30709)
// with kubectl 1.32 and etcdctl 3.4: secrets written with the aescbc key
// (etcd holds `k8s:enc:aescbc:v1:key1:` and no plaintext) while configmaps
// stay plain protobuf; kubectl reads them back; key rotation (new first key,
// restart, old values still read, `kubectl replace` of every secret moves
// them to the new key); a wrong key makes reads of the old value fail with
// kube's 500 while the server keeps serving.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reapApiServers, startTestApiServer, type TestApiServer } from '../../support/apiserver';

const PORT_BASE = 30700;
const key = (n: number) => Buffer.alloc(32, n).toString('base64');
const config = (keys: { name: string; n: number }[]) => `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
- resources: [secrets]
  providers:
  - aescbc:
      keys:
${keys.map((k) => `      - name: ${k.name}\n        secret: ${key(k.n)}`).join('\n')}
  - identity: {}
`;

let api: TestApiServer;
let dir: string;
let configFile: string;

async function kubectl(args: string[], stdin?: string): Promise<string> {
  const r = await api.kubectl(args, { stdin, timeoutMs: 30_000 });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} → ${r.code}: ${r.stderr}`);
  return r.stdout;
}
/** The raw value etcd holds for a key (etcdctl prints key, then value). */
async function etcdValue(k: string): Promise<Buffer> {
  const r = await api.etcdctl(['get', k, '--print-value-only']);
  expect(r.code, r.stderr).toBe(0);
  return (r as typeof r & { raw: Buffer }).raw;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'a2-encryption-'));
  configFile = join(dir, 'encryption.yaml');
  writeFileSync(configFile, config([{ name: 'key1', n: 1 }]));
  api = await startTestApiServer(PORT_BASE, [`--encryption-provider-config=${configFile}`]);
}, 240_000);

afterAll(async () => {
  await reapApiServers();
  rmSync(dir, { recursive: true, force: true });
});

describe('encryption at rest', () => {
  it('a secret is stored under the aescbc key with no plaintext; kubectl reads it back; configmaps stay plain', async () => {
    await kubectl(['create', 'secret', 'generic', 's1', '--from-literal=password=hunter2-very-secret']);
    const raw = await etcdValue('/registry/secrets/default/s1');
    expect(raw.subarray(0, 23).toString('latin1')).toBe('k8s:enc:aescbc:v1:key1:');
    expect(raw.includes(Buffer.from('hunter2'))).toBe(false);
    expect(raw.includes(Buffer.from('password'))).toBe(false);
    // Nothing of the plain envelope either. (Not the name "s1": two bytes
    // turn up by chance in random ciphertext about once in 300 runs.)
    expect(raw.includes(Buffer.from('k8s\u0000'))).toBe(false);
    expect(raw.includes(Buffer.from('Secret'))).toBe(false);
    const got = await kubectl(['get', 'secret', 's1', '-o', 'jsonpath={.data.password}']);
    expect(Buffer.from(got, 'base64').toString()).toBe('hunter2-very-secret');
    expect(await kubectl(['get', 'secrets', '-o', 'name'])).toContain('secret/s1');

    await kubectl(['create', 'configmap', 'c1', '--from-literal=plain=visible']);
    const cm = await etcdValue('/registry/configmaps/default/c1');
    expect(cm.subarray(0, 4).toString('latin1')).toBe('k8s\u0000');
    expect(cm.includes(Buffer.from('visible'))).toBe(true);
  });

  it('an update re-encrypts; a second secret gets its own IV', async () => {
    await kubectl(['create', 'secret', 'generic', 's2', '--from-literal=password=hunter2-very-secret']);
    const [a, b] = [await etcdValue('/registry/secrets/default/s1'), await etcdValue('/registry/secrets/default/s2')];
    expect(a.subarray(23, 39).equals(b.subarray(23, 39))).toBe(false);
    await kubectl(['label', 'secret', 's2', 'tier=gold']);
    const after = await etcdValue('/registry/secrets/default/s2');
    expect(after.subarray(0, 23).toString('latin1')).toBe('k8s:enc:aescbc:v1:key1:');
    expect(after.equals(b)).toBe(false);
    expect(await kubectl(['get', 'secret', 's2', '-o', 'jsonpath={.metadata.labels.tier}'])).toBe('gold');
  });

  it('rotation: a new first key writes, the old key still reads, kubectl replace moves every secret to the new key', async () => {
    writeFileSync(configFile, config([{ name: 'key2', n: 2 }, { name: 'key1', n: 1 }]));
    await api.restart();
    expect((await etcdValue('/registry/secrets/default/s1')).subarray(0, 23).toString('latin1')).toBe('k8s:enc:aescbc:v1:key1:');
    expect(Buffer.from(await kubectl(['get', 'secret', 's1', '-o', 'jsonpath={.data.password}']), 'base64').toString()).toBe('hunter2-very-secret');

    await kubectl(['create', 'secret', 'generic', 's3', '--from-literal=k=v']);
    expect((await etcdValue('/registry/secrets/default/s3')).subarray(0, 23).toString('latin1')).toBe('k8s:enc:aescbc:v1:key2:');

    const all = await kubectl(['get', 'secrets', '-A', '-o', 'json']);
    // kube's documented rewrite; kubectl validates the List against /openapi/v2 first.
    await kubectl(['replace', '-f', '-'], all);
    for (const name of ['s1', 's2', 's3']) {
      expect((await etcdValue(`/registry/secrets/default/${name}`)).subarray(0, 23).toString('latin1')).toBe('k8s:enc:aescbc:v1:key2:');
    }
    expect(Buffer.from(await kubectl(['get', 'secret', 's1', '-o', 'jsonpath={.data.password}']), 'base64').toString()).toBe('hunter2-very-secret');
  }, 240_000);

  it('a wrong key: reading the old value fails with kube\'s internal error, the server keeps serving', async () => {
    // key2's name with other bytes: the prefix matches, decryption does not.
    writeFileSync(configFile, config([{ name: 'key2', n: 9 }]));
    await api.restart();
    const r = await api.kubectl(['get', 'secret', 's1', '-o', 'json']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/Error from server \(InternalError\): Internal error occurred: /);
    expect(r.stdout).not.toContain('hunter2');
    expect(await kubectl(['get', 'configmap', 'c1', '-o', 'jsonpath={.data.plain}'])).toBe('visible');
    // New writes use the configured key and read back.
    await kubectl(['create', 'secret', 'generic', 's4', '--from-literal=k=v4']);
    expect(Buffer.from(await kubectl(['get', 'secret', 's4', '-o', 'jsonpath={.data.k}']), 'base64').toString()).toBe('v4');
    expect(api.logTail(200)).toContain('unable to transform key "/registry/secrets/default/s1"');

    // A LIST fails as kube's does (its watch cache cannot list either) rather than leaving the secret out.
    const list = await api.kubectl(['get', 'secrets', '-o', 'name']);
    expect(list.code).not.toBe(0);
    expect(list.stderr).toContain('Error from server (InternalError): Internal error occurred: unable to transform key "/registry/secrets/default/s');
    expect(list.stdout).not.toContain('secret/s4');
    // Removing the unreadable values (etcdctl, as an operator would) lets the cache list again.
    for (const name of ['s1', 's2', 's3']) expect((await api.etcdctl(['del', `/registry/secrets/default/${name}`])).code).toBe(0);
    let names = '';
    for (let i = 0; i < 120 && names !== 'secret/s4'; i++) {
      const r = await api.kubectl(['get', 'secrets', '-o', 'name']);
      names = r.code === 0 ? r.stdout.trim() : '';
      if (names !== 'secret/s4') await new Promise((res) => setTimeout(res, 500));
    }
    expect(names).toBe('secret/s4');
  }, 240_000);

  it('a bad config stops the server with kube\'s message', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, config([]).replace('      keys:\n', `      keys:\n      - name: short\n        secret: ${Buffer.alloc(8).toString('base64')}\n`));
    const { spawnSync } = await import('node:child_process');
    const { CLI_JS } = await import('../../support/cluster');
    const r = spawnSync(process.execPath, [CLI_JS, 'apiserver', '--etcd-servers=https://127.0.0.1:30799', '--tls-cert-file=/dev/null', '--tls-private-key-file=/dev/null', `--encryption-provider-config=${bad}`], { encoding: 'utf8', timeout: 120_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('Error: error while parsing file: resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 8, expected one of [16 24 32]');
  }, 150_000);
});
