// Encryption at rest turned on under existing data, then a
// StorageVersionMigration: 250 Secrets created with kubectl are stored as
// plain protobuf; the API server restarts with --encryption-provider-config
// (aescbc key1, then identity), which leaves them as they were; a
// StorageVersionMigration for secrets created with `kubectl create -f` makes
// the storage-version-migrator-controller of a real `pilothouse controllers`
// process (with --data-dir: its own service account and bootstrap role)
// rewrite every one. Debian's etcdctl 3.4 then sees `k8s:enc:aescbc:v1:key1:`
// on every Secret, kubectl still reads each one, and the storage census
// counts the same. Ports 26300–26306.

import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdClient } from '../../../main/client/etcd/etcdClient';
import { storageCensus } from '../../../main/upgrade/storageCensus';
import { reapApiServers, startTestApiServer, type TestApiServer } from '../../support/apiserver';
import { CLI_JS } from '../../support/cluster';
import { eventually } from '../../support/waitFor';

const PORT_BASE = 26300;
const SECRETS = 250;
const NAMESPACES = ['svm-a', 'svm-b'];
const AESCBC = 'k8s:enc:aescbc:v1:key1:';
const ENCRYPTION = `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
- resources: [secrets]
  providers: [{aescbc: {keys: [{name: key1, secret: ${Buffer.alloc(32, 11).toString('base64')}}]}}, {identity: {}}]
`;
const MIGRATION = `apiVersion: storagemigration.k8s.io/v1alpha1
kind: StorageVersionMigration
metadata:
  name: secrets-enc
spec:
  resource:
    group: ""
    version: v1
    resource: secrets
`;

let api: TestApiServer;
let controllers: { child: ChildProcess; log: () => string } | undefined;

async function kubectl(args: string[], stdin?: string): Promise<string> {
  const r = await api.kubectl(args, { stdin, timeoutMs: 60_000 });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} → ${r.code}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}

/** Every Secret's key and raw value as etcdctl 3.4 reads them (-w json: base64 keys and values). */
async function storedSecrets(): Promise<Map<string, Buffer>> {
  const r = await api.etcdctl(['get', '/registry/secrets/', '--prefix', '-w', 'json'], { timeoutMs: 30_000 });
  expect(r.code, r.stderr).toBe(0);
  const kvs = (JSON.parse(r.stdout) as { kvs?: { key: string; value: string }[] }).kvs ?? [];
  return new Map(kvs.map((kv) => [Buffer.from(kv.key, 'base64').toString(), Buffer.from(kv.value, 'base64')]));
}

function startControllers(): { child: ChildProcess; log: () => string } {
  const child = spawn(process.execPath, [CLI_JS, 'controllers', `--data-dir=${api.tc.dir}`, '--components=kube-controller-manager'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
  });
  let text = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (text += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (text += d));
  return { child, log: () => text };
}

beforeAll(async () => {
  api = await startTestApiServer(PORT_BASE);
}, 240_000);

afterAll(async () => {
  const c = controllers?.child;
  if (c && c.exitCode === null && c.signalCode === null) {
    c.kill('SIGKILL');
    await new Promise((r) => c.once('exit', r));
  }
  await reapApiServers();
});

describe('storage version migration after encryption is turned on', () => {
  it('secrets written before the encryption config stay plain protobuf across the restart', async () => {
    for (const ns of NAMESPACES) await kubectl(['create', 'namespace', ns]);
    const items = Array.from({ length: SECRETS }, (_, i) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `s-${i}`, namespace: NAMESPACES[i % NAMESPACES.length] },
      stringData: { password: `hunter2-${i}` },
    }));
    await kubectl(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    const before = await storedSecrets();
    expect(before.size).toBe(SECRETS);
    for (const v of before.values()) expect(v.subarray(0, 4).toString('latin1')).toBe('k8s\u0000');

    const configFile = join(api.tc.dir, 'encryption.yaml');
    writeFileSync(configFile, ENCRYPTION);
    await api.proc.stop();
    await api.proc.replace({ args: [...api.proc.commandLine().args, `--encryption-provider-config=${configFile}`] });
    await api.restart();
    const after = await storedSecrets();
    expect([...after.values()].filter((v) => v.subarray(0, 4).toString('latin1') === 'k8s\u0000').length).toBe(SECRETS);
  }, 240_000);

  it('a StorageVersionMigration for secrets succeeds and every Secret is then stored under aescbc key1', async () => {
    controllers = startControllers();
    const created = await kubectl(['create', '-f', '-'], MIGRATION);
    expect(created.trim()).toBe('storageversionmigration.storagemigration.k8s.io/secrets-enc created');

    type Svm = { status?: { resourceVersion?: string; conditions?: { type: string; status: string; reason: string; message?: string }[] } };
    const svm = await eventually(
      'the migration Succeeded',
      async () => {
        const m = JSON.parse(await kubectl(['get', 'storageversionmigration', 'secrets-enc', '-o', 'json'])) as Svm;
        return m.status?.conditions?.some((c) => c.type === 'Succeeded' && c.status === 'True') ? m : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500, detail: () => controllers!.log().split('\n').slice(-30).join('\n') },
    );
    expect(svm.status!.resourceVersion).toMatch(/^[1-9][0-9]*$/);
    expect(svm.status!.conditions!.map((c) => ({ type: c.type, status: c.status, reason: c.reason, message: c.message }))).toEqual([
      { type: 'Running', status: 'False', reason: 'StorageVersionMigrationInProgress', message: `migrated ${SECRETS} of ${SECRETS} objects` },
      { type: 'Succeeded', status: 'True', reason: 'StorageVersionMigrationSucceeded', message: undefined },
    ]);

    // One run, with no failed sync along the way.
    expect(controllers!.log()).toContain(`storage-version-migrator-controller: secrets-enc: migrated ${SECRETS} secrets`);
    expect(controllers!.log()).not.toContain('sync secrets-enc');

    const stored = await storedSecrets();
    expect(stored.size).toBe(SECRETS);
    const notEncrypted = [...stored].filter(([, v]) => v.subarray(0, AESCBC.length).toString('latin1') !== AESCBC).map(([k]) => k);
    expect(notEncrypted).toEqual([]);
    for (const v of stored.values()) expect(v.includes(Buffer.from('hunter2'))).toBe(false);

    // kubectl reads every one back.
    const list = JSON.parse(await kubectl(['get', 'secrets', '-A', '-o', 'json'])) as { items: { metadata: { name: string; namespace: string }; data: { password: string } }[] };
    const ours = list.items.filter((s) => NAMESPACES.includes(s.metadata.namespace));
    expect(ours).toHaveLength(SECRETS);
    for (const s of ours) expect(Buffer.from(s.data.password, 'base64').toString()).toBe(`hunter2-${s.metadata.name.slice(2)}`);
    const yaml = await kubectl(['get', 'secret', 's-7', '-n', NAMESPACES[1]!, '-o', 'yaml']);
    expect(yaml).toContain(`password: ${Buffer.from('hunter2-7').toString('base64')}`);
  }, 240_000);

  it('the storage census counts the same, and kubectl prints the migration table', async () => {
    const pki = api.tc.cluster.pki!;
    const client = new EtcdClient({ endpoints: api.tc.cluster.layout.map((m) => m.clientUrl), tls: { caFile: pki.ca.cert, certFile: pki.client.cert, keyFile: pki.client.key } });
    try {
      const census = await storageCensus(client, { pageSize: 64 });
      expect(census.resources.secrets).toEqual({ [`encrypted:aescbc:key1`]: SECRETS });
      expect(census.resources.namespaces?.protobuf).toBeGreaterThanOrEqual(NAMESPACES.length);
      expect(census.resources.storageversionmigrations).toEqual({ protobuf: 1 });
    } finally {
      client.close();
    }
    const table = await kubectl(['get', 'storageversionmigrations']);
    expect(table.trim().split('\n').map((l) => l.trim().split(/\s+/))).toEqual([
      ['NAME', 'RESOURCE'],
      ['secrets-enc', 'secrets.v1.'],
    ]);
  }, 60_000);
});
