// The console attached to a cluster through a kubeconfig only (no etcd
// endpoints): Pilothouse's API server, reached as a kubeconfig context's
// user, through the same BridgeHandlers the web host and Electron call:
//   - Watch events from the Kubernetes API: kubectl's create, update and
//     delete seen as ADDED/MODIFIED/DELETED, keyed like etcd keys,
//     revision = resourceVersion, the detail the object's JSON with its
//     previous version, and no raw etcd bytes (said so);
//   - a user whose Role lets it list only configmaps in one namespace: the
//     forbidden resources named in the feed's status, configmaps in that
//     namespace still watched, the nodes table empty rather than broken;
//   - the errors people hit: an exec plugin not installed, a context the
//     kubeconfig lacks, an API server that does not answer — each said;
//   - the Admission log: "no traces" said without an audit log; with the
//     API server's audit log, the requests kubectl made listed.
// Ports 26760–26766 (etcd 26760–26765, the API server 26766); 26779 stays unbound.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BridgeEventName, BridgeEvents, EventSink } from '../../../preload/contract';
import { issueLeaf } from '../../../main/common/pki/certificates';
import type { AttachOptions } from '../../../main/console/attachedCluster';
import { NO_TRACES } from '../../../main/console/attachedFeeds';
import { createAttachedConsoleServices, type AttachedConsoleServices } from '../../../main/console/consoleServices';
import { reapApiServers, startTestApiServer, type TestApiServer } from '../../support/apiserver';
import { CLI_JS } from '../../support/cluster';
import { eventually } from '../../support/waitFor';

const PORT_BASE = 26760;
const UNBOUND = 26779;

class Sink implements EventSink {
  readonly seen: { name: BridgeEventName; payload: unknown }[] = [];
  emit<E extends BridgeEventName>(name: E, payload: BridgeEvents[E]): void {
    this.seen.push({ name, payload });
  }
}

let api: TestApiServer;
let kubeconfig: string;
const scratch = mkdtempSync(join(tmpdir(), 'pilothouse-attached-kube-'));
const opened: AttachedConsoleServices[] = [];

async function attach(kube: { context: string; kubeconfig?: string }, extra: Partial<AttachOptions> = {}, startTimeoutMs = 8_000): Promise<AttachedConsoleServices> {
  const dataDir = mkdtempSync(join(scratch, 'console-'));
  const svc = createAttachedConsoleServices({
    dataDir, cliPath: CLI_JS, runtime: 'web', events: new Sink(), startTimeoutMs,
    attach: { name: 'kube-only', kube: { kubeconfig: kube.kubeconfig ?? kubeconfig, context: kube.context }, writable: false, ...extra },
  });
  opened.push(svc);
  await svc.start();
  return svc;
}

/** One kubeconfig, four contexts: admin, a configmap reader in team-a, a user with a missing exec plugin, an API server that is not there. */
async function writeContexts(): Promise<string> {
  const ca = { cert: readFileSync(api.layout.pki.ca.cert, 'utf8'), key: readFileSync(api.layout.pki.ca.key, 'utf8') };
  const reader = await issueLeaf(ca, { profile: 'client', commonName: 'cm-reader' });
  const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');
  const admin = { cert: readFileSync(api.layout.pki.admin.cert), key: readFileSync(api.layout.pki.admin.key) };
  const file = join(scratch, 'contexts.kubeconfig');
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'admin',
      clusters: [
        { name: 'local', cluster: { server: api.layout.url, 'certificate-authority-data': b64(ca.cert) } },
        { name: 'gone', cluster: { server: `https://127.0.0.1:${UNBOUND}`, 'certificate-authority-data': b64(ca.cert) } },
      ],
      users: [
        { name: 'admin', user: { 'client-certificate-data': b64(admin.cert), 'client-key-data': b64(admin.key) } },
        { name: 'cm-reader', user: { 'client-certificate-data': b64(reader.cert), 'client-key-data': b64(reader.key) } },
        { name: 'eks', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1beta1', command: 'does-not-exist-plugin', args: ['token'], interactiveMode: 'Never' } } },
      ],
      contexts: [
        { name: 'admin', context: { cluster: 'local', user: 'admin' } },
        { name: 'reader', context: { cluster: 'local', user: 'cm-reader', namespace: 'team-a' } },
        { name: 'plugin', context: { cluster: 'local', user: 'eks' } },
        { name: 'gone', context: { cluster: 'gone', user: 'admin' } },
      ],
    }),
    { mode: 0o600 },
  );
  return file;
}

async function kubectl(args: string[], stdin?: string): Promise<string> {
  const r = await api.kubectl(args, stdin === undefined ? {} : { stdin });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

beforeAll(async () => {
  api = await startTestApiServer(PORT_BASE);
  kubeconfig = await writeContexts();
  await kubectl(['create', 'namespace', 'team-a']);
  await kubectl(['create', 'role', 'cm-reader', '-n', 'team-a', '--verb=get,list,watch', '--resource=configmaps']);
  await kubectl(['create', 'rolebinding', 'cm-reader', '-n', 'team-a', '--role=cm-reader', '--user=cm-reader']);
}, 180_000);

afterAll(async () => {
  for (const s of opened) await s.dispose();
  await reapApiServers();
  rmSync(scratch, { recursive: true, force: true });
});

describe('attached through a kubeconfig only, as admin', () => {
  let svc: AttachedConsoleServices;
  beforeAll(async () => {
    svc = await attach({ context: 'admin' });
  }, 60_000);

  it('attaches with only the kube step, and says the events come from the Kubernetes API', async () => {
    expect((await svc.handlers.startupProgress()).map((s) => [s.id, s.state])).toEqual([['kube', 'done']]);
    const st = (await svc.handlers.feedStatus()).watch;
    expect(st.sources).toEqual(['kubernetes']);
    expect(st.resources).toEqual(expect.arrayContaining(['pods', 'configmaps', 'secrets', 'deployments', 'nodes', 'namespaces']));
    expect(st.notes.filter((n) => n.startsWith('cannot watch'))).toEqual([]);
  });

  it('kubectl create, update and delete are ADDED, MODIFIED and DELETED, keyed like etcd, revision = resourceVersion', async () => {
    await kubectl(['create', 'configmap', 'kw-cm', '--from-literal=k=v1']);
    await kubectl(['patch', 'configmap', 'kw-cm', '--type=merge', '-p', '{"data":{"k":"v2"}}']);
    await kubectl(['delete', 'configmap', 'kw-cm']);
    const mine = await eventually(
      'the three events',
      async () => {
        const evs = (await svc.handlers.recentWatchEvents({ limit: 500 })).filter((e) => e.key === '/registry/configmaps/default/kw-cm');
        return evs.length >= 3 ? evs : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    expect(mine.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    for (const e of mine) {
      expect(e).toMatchObject({ source: 'kubernetes', resource: 'configmaps', namespace: 'default', name: 'kw-cm', kind: 'ConfigMap' });
      expect(e.revision).toMatch(/^\d+$/);
    }
    expect(Number(mine[1]!.revision)).toBeGreaterThan(Number(mine[0]!.revision));
    const modified = (await svc.handlers.watchEventDetail({ seq: mine[1]!.seq }))!;
    expect(JSON.parse(modified.yaml).data).toEqual({ k: 'v2' });
    expect(JSON.parse(modified.previousYaml).data).toEqual({ k: 'v1' });
    expect(modified.encoding).toBe('json (Kubernetes API)');
    expect(modified.note).toMatch(/raw etcd bytes .* not visible through the API/);
    const deleted = (await svc.handlers.watchEventDetail({ seq: mine[2]!.seq }))!;
    expect(deleted.yaml).toBe('');
    expect(JSON.parse(deleted.previousYaml).metadata.name).toBe('kw-cm');
  });

  it("secrets are watched by their metadata only: the value never reaches the console", async () => {
    await kubectl(['create', 'secret', 'generic', 'kw-secret', '--from-literal=password=hunter2']);
    const ev = await eventually('the secret added', async () => (await svc.handlers.recentWatchEvents({ limit: 500 })).find((e) => e.key === '/registry/secrets/default/kw-secret'), { timeoutMs: 15_000, intervalMs: 100 });
    const d = (await svc.handlers.watchEventDetail({ seq: ev.seq }))!;
    expect(JSON.parse(d.yaml).metadata.name).toBe('kw-secret');
    expect(JSON.parse(d.yaml).data).toBeUndefined();
    expect(d.yaml).not.toContain(Buffer.from('hunter2').toString('base64'));
  });

  it('a deployment and a namespace are filed under their resources, cluster-scoped without a namespace', async () => {
    await kubectl(['create', 'deployment', 'kw-web', '--image=nginx']);
    await kubectl(['create', 'namespace', 'kw-ns']);
    const evs = await eventually(
      'both added',
      async () => {
        const recent = await svc.handlers.recentWatchEvents({ limit: 1000 });
        const dep = recent.find((e) => e.key === '/registry/deployments/default/kw-web' && e.type === 'ADDED');
        const ns = recent.find((e) => e.key === '/registry/namespaces/kw-ns' && e.type === 'ADDED');
        return dep && ns ? { dep, ns } : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    expect(evs.ns.namespace).toBeUndefined();
    expect(evs.ns.resource).toBe('namespaces');
    expect(evs.dep.kind).toBe('Deployment');
  });

  it('the Admission log says plainly that there are no traces without an audit log', async () => {
    expect((await svc.handlers.feedStatus()).admission).toEqual({ source: 'none', notes: [NO_TRACES] });
    expect(await svc.handlers.recentTraces({ limit: 10 })).toEqual([]);
  });
});

describe('a user whose Role lets it read only configmaps in team-a', () => {
  let svc: AttachedConsoleServices;
  beforeAll(async () => {
    svc = await attach({ context: 'reader' });
  }, 60_000);

  it('names each forbidden resource once, and still watches configmaps in team-a', async () => {
    const st = (await svc.handlers.feedStatus()).watch;
    expect(st.resources).toEqual(['configmaps in team-a']);
    expect(st.notes).toContain('cannot watch secrets in namespace team-a: forbidden (secrets is forbidden: User "cm-reader" cannot list resource "secrets" in API group "" in the namespace "team-a")');
    expect(st.notes.find((n) => n.startsWith('cannot watch nodes:'))).toMatch(/^cannot watch nodes: forbidden \(.*User "cm-reader" cannot list resource "nodes"/);
    expect(st.notes.find((n) => n.startsWith('cannot watch configmaps'))).toMatch(/^cannot watch configmaps across namespaces: forbidden \(.*\); watching namespace team-a only$/);
    // each once
    expect(new Set(st.notes).size).toBe(st.notes.length);
    await kubectl(['create', 'configmap', 'team-cm', '-n', 'team-a', '--from-literal=a=b']);
    await kubectl(['create', 'configmap', 'elsewhere', '--from-literal=a=b']);
    const ev = await eventually('the team-a configmap', async () => (await svc.handlers.recentWatchEvents({ limit: 100 })).find((e) => e.key === '/registry/configmaps/team-a/team-cm'), { timeoutMs: 15_000, intervalMs: 100 });
    expect(ev.type).toBe('ADDED');
    expect((await svc.handlers.recentWatchEvents({ limit: 100 })).map((e) => e.namespace)).not.toContain('default');
    const logs = (await svc.handlers.logs({ component: 'console', search: 'cannot watch secrets' })).map((l) => l.text);
    expect(logs.length).toBeGreaterThanOrEqual(1);
    expect((await svc.handlers.overview()).mode).toBe('external');
  });
});

describe('etcd and the Kubernetes API side by side (watch: both)', () => {
  it('one list: the same write from etcd and from the API, seqs unique and rising, each detail from its own feed', async () => {
    const pki = api.tc.cluster.pki!;
    const etcd = { endpoints: api.tc.cluster.layout.map((m) => m.clientUrl), cacert: pki.ca.cert, cert: pki.client.cert, key: pki.client.key };
    const svc = await attach({ context: 'admin' }, { etcd, watch: 'both' });
    expect((await svc.handlers.feedStatus()).watch.sources).toEqual(['etcd', 'kubernetes']);
    await kubectl(['create', 'configmap', 'both-cm', '--from-literal=k=v']);
    const evs = await eventually(
      'both records',
      async () => {
        const recent = await svc.handlers.recentWatchEvents({ limit: 1000 });
        const mine = recent.filter((e) => e.key === '/registry/configmaps/default/both-cm');
        return mine.some((e) => e.source === 'etcd') && mine.some((e) => e.source === 'kubernetes') ? recent : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    const seqs = evs.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    const fromEtcd = evs.find((e) => e.key === '/registry/configmaps/default/both-cm' && e.source === 'etcd')!;
    const fromApi = evs.find((e) => e.key === '/registry/configmaps/default/both-cm' && e.source === 'kubernetes')!;
    expect(fromApi.revision).toBe(fromEtcd.revision); // resourceVersion is etcd's mod revision
    expect((await svc.handlers.watchEventDetail({ seq: fromEtcd.seq }))!.encoding).toBe('protobuf');
    expect((await svc.handlers.watchEventDetail({ seq: fromApi.seq }))!.encoding).toBe('json (Kubernetes API)');
    await svc.dispose();
  }, 60_000);
});

describe('the errors people hit', () => {
  it('an exec plugin that is not installed: the kube step and the watch status say so, the console answers', async () => {
    const svc = await attach({ context: 'plugin' });
    const step = (await svc.handlers.startupProgress()).find((s) => s.id === 'kube')!;
    expect(step.state).toBe('failed');
    expect(step.detail).toBe('the kubeconfig\'s user runs "does-not-exist-plugin" to get a token, and it is not installed (spawn does-not-exist-plugin ENOENT)');
    const st = await svc.handlers.feedStatus();
    expect(st.watch.notes).toEqual([`the Kubernetes API is not reachable: ${step.detail}`]);
    expect((await svc.handlers.overview()).mode).toBe('external');
    await svc.dispose();
  });

  it('a context the kubeconfig does not have names the ones it has', async () => {
    const svc = await attach({ context: 'prod' });
    const step = (await svc.handlers.startupProgress()).find((s) => s.id === 'kube')!;
    expect(step.state).toBe('failed');
    expect(step.detail).toBe(`${kubeconfig} has no context "prod" (its contexts: admin, reader, plugin, gone)`);
    expect((await svc.handlers.feedStatus()).watch.notes[0]).toContain('has no context "prod"');
    await svc.dispose();
  });

  it('an API server that is not there: nothing listens, said', async () => {
    const svc = await attach({ context: 'gone' });
    const step = (await svc.handlers.startupProgress()).find((s) => s.id === 'kube')!;
    expect(step.state).toBe('failed');
    expect(step.detail).toMatch(new RegExp(`^nothing listens at https://127\\.0\\.0\\.1:${UNBOUND} \\(connection refused\\)`));
    expect(await svc.handlers.recentWatchEvents({ limit: 10 })).toEqual([]);
    await svc.dispose();
  });
});

describe('the Admission log from the API server\'s audit log', () => {
  it("lists the requests kubectl made, with who, the verb, the object and the decision", async () => {
    const svc = await attach({ context: 'admin' }, { auditLog: api.layout.auditLogFile });
    expect((await svc.handlers.feedStatus()).admission).toEqual({ source: 'audit-log', path: api.layout.auditLogFile, notes: [] });
    await kubectl(['create', 'configmap', 'audited-cm', '--from-literal=x=y']);
    const denied = await api.kubectl(['--context=reader', 'get', 'secret', 'kw-nope'], { env: { KUBECONFIG: kubeconfig } });
    expect(denied.code).not.toBe(0);
    const found = await eventually(
      'the create and the forbidden get',
      async () => {
        const traces = await svc.handlers.recentTraces({ limit: 5000 });
        const create = traces.find((t) => t.verb === 'create' && t.resource === 'configmaps' && t.name === 'audited-cm');
        const get = traces.find((t) => t.user === 'cm-reader' && t.resource === 'secrets' && t.name === 'kw-nope');
        return create && get ? { create, get } : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    expect(found.create).toMatchObject({ source: 'audit', user: 'admin', method: 'POST', namespace: 'default', decision: 'allowed', code: 201 });
    expect(found.create.stages[0]).toMatchObject({ stage: 'authorization', verdict: 'allow' });
    expect(found.get).toMatchObject({ source: 'audit', verb: 'get', namespace: 'team-a', decision: 'denied', code: 403 });
    expect(found.get.message).toMatch(/User "cm-reader" cannot get resource "secrets"/);
    await svc.dispose();
  }, 60_000);
});
