// REST semantics over raw HTTPS (the admin client certificate), against a
// real control plane whose API server stores JSON
// (--storage-media-type=application/json): deletion (finalizers,
// propagation policies, graceful pod deletion), dryRun, generateName,
// lists (selectors, limit/continue, Tables, PartialObjectMetadata),
// discovery negotiation and ETags, health, the bootstrap namespaces, and the
// request-trace endpoint.

import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRequest, PORTS_APISERVER, reapApiServers, startTestApiServer, type TestApiServer } from '../../support/apiserver';

let api: TestApiServer;
const req = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  apiRequest(api.layout, method, path, body === undefined ? undefined : JSON.stringify(body), headers);

beforeAll(async () => {
  api = await startTestApiServer(PORTS_APISERVER.rest, ['--storage-media-type=application/json']);
}, 120_000);

afterAll(async () => {
  await reapApiServers();
});

const cm = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra }, data: { k: 'v' } });
const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });

describe('REST semantics', () => {
  it('bootstrap namespaces exist, kubectl get ns lists them', async () => {
    const out = await api.kubectl(['get', 'ns', '--no-headers', '-o', 'custom-columns=NAME:.metadata.name,PHASE:.status.phase']);
    expect(out.stdout.split('\n').filter((l) => l).map((l) => l.split(/\s+/).join(' ')).sort()).toEqual(['default Active', 'kube-node-lease Active', 'kube-public Active', 'kube-system Active']);
    const svc = (await req('GET', '/api/v1/namespaces/default/services/kubernetes')).json() as { spec: { clusterIP: string } };
    expect(svc.spec.clusterIP).toBe('10.96.0.1');
  }, 60_000);

  it('stores JSON with --storage-media-type=application/json', async () => {
    expect((await req('POST', '/api/v1/namespaces/default/configmaps', cm('stored'))).status).toBe(201);
    const r = await api.etcdctl(['get', '/registry/configmaps/default/stored', '--print-value-only']);
    const v = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(v).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'stored', namespace: 'default' }, data: { k: 'v' } });
    expect((v.metadata as Record<string, unknown>).resourceVersion).toBeUndefined();
  }, 30_000);

  it('generateName and dryRun=All', async () => {
    const gen = await req('POST', '/api/v1/namespaces/default/configmaps', cm('', { generateName: 'gen-' }));
    expect(gen.status).toBe(201);
    expect((gen.json() as { metadata: { name: string } }).metadata.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    const dry = await req('POST', '/api/v1/namespaces/default/configmaps?dryRun=All', cm('dry'));
    expect(dry.status).toBe(201);
    expect((dry.json() as { metadata: { uid: string } }).metadata.uid).toBeTruthy();
    expect((await req('GET', '/api/v1/namespaces/default/configmaps/dry')).status).toBe(404);
  }, 30_000);

  it('delete with a finalizer sets deletionTimestamp; removing the finalizer deletes', async () => {
    expect((await req('POST', '/api/v1/namespaces/default/configmaps', cm('fin', { finalizers: ['example.com/hold'] }))).status).toBe(201);
    const del = await req('DELETE', '/api/v1/namespaces/default/configmaps/fin');
    expect(del.status).toBe(200);
    const held = del.json() as { metadata: { deletionTimestamp?: string; deletionGracePeriodSeconds?: number; finalizers: string[] } };
    expect(held.metadata.deletionTimestamp).toBeTruthy();
    expect(held.metadata.deletionGracePeriodSeconds).toBe(0);
    const patch = await req('PATCH', '/api/v1/namespaces/default/configmaps/fin', { metadata: { finalizers: null } }, { 'Content-Type': 'application/merge-patch+json' });
    expect(patch.status).toBe(200);
    expect((await req('GET', '/api/v1/namespaces/default/configmaps/fin')).status).toBe(404);
  }, 30_000);

  it('propagationPolicy Foreground/Orphan add their finalizers; Background deletes at once with a Status', async () => {
    for (const [name, policy, finalizer] of [
      ['fg', 'Foreground', 'foregroundDeletion'],
      ['or', 'Orphan', 'orphan'],
    ] as const) {
      await req('POST', '/api/v1/namespaces/default/configmaps', cm(name));
      const del = await req('DELETE', `/api/v1/namespaces/default/configmaps/${name}`, { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: policy });
      expect((del.json() as { metadata: { finalizers: string[] } }).metadata.finalizers).toEqual([finalizer]);
    }
    const created = (await req('POST', '/api/v1/namespaces/default/configmaps', cm('bg'))).json() as { metadata: { uid: string } };
    const del = await req('DELETE', '/api/v1/namespaces/default/configmaps/bg', { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' });
    expect(del.json()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'bg', kind: 'configmaps', uid: created.metadata.uid } });
  }, 30_000);

  it('delete preconditions: a stale resourceVersion is 409 with kube\'s wording', async () => {
    const c = (await req('POST', '/api/v1/namespaces/default/configmaps', cm('pre'))).json() as { metadata: { resourceVersion: string } };
    const del = await req('DELETE', '/api/v1/namespaces/default/configmaps/pre', { preconditions: { resourceVersion: '1' } });
    expect(del.status).toBe(409);
    expect(del.json().message).toBe(
      `Operation cannot be fulfilled on ConfigMap "pre": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${c.metadata.resourceVersion}). The object might have been modified`,
    );
  }, 30_000);

  it('graceful pod deletion: deletionTimestamp + 30 s grace, then grace 0 removes it', async () => {
    expect((await req('POST', '/api/v1/namespaces/default/pods', pod('p1'))).status).toBe(201);
    // A pod on a node is deleted gracefully.
    const bind = await req('POST', '/api/v1/namespaces/default/pods/p1/binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p1' }, target: { apiVersion: 'v1', kind: 'Node', name: 'n1' } });
    expect(bind.status).toBe(201);
    expect(bind.json()).toMatchObject({ kind: 'Status', status: 'Success', code: 201 });
    const again = await req('POST', '/api/v1/namespaces/default/pods/p1/binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p1' }, target: { apiVersion: 'v1', kind: 'Node', name: 'n2' } });
    expect(again.status).toBe(409);
    expect(again.json().message).toBe('Operation cannot be fulfilled on pods/binding "p1": pod p1 is already assigned to node "n1"');
    const del = await req('DELETE', '/api/v1/namespaces/default/pods/p1');
    const pending = del.json() as { metadata: { deletionGracePeriodSeconds: number; deletionTimestamp: string } };
    expect(pending.metadata.deletionGracePeriodSeconds).toBe(30);
    expect(Date.parse(pending.metadata.deletionTimestamp)).toBeGreaterThan(Date.now() + 20_000);
    expect((await req('GET', '/api/v1/namespaces/default/pods/p1')).status).toBe(200);
    const now = await req('DELETE', '/api/v1/namespaces/default/pods/p1?gracePeriodSeconds=0');
    expect(now.status).toBe(200);
    expect((await req('GET', '/api/v1/namespaces/default/pods/p1')).status).toBe(404);
  }, 30_000);

  it('lists: label selectors, field selectors, limit/continue, resourceVersion always set', async () => {
    for (let i = 0; i < 5; i++) await req('POST', '/api/v1/namespaces/default/configmaps', cm(`l${i}`, { labels: { tier: i % 2 === 0 ? 'even' : 'odd' } }));
    const even = (await req('GET', '/api/v1/namespaces/default/configmaps?labelSelector=tier%3Deven')).json() as { kind: string; metadata: { resourceVersion: string }; items: { metadata: { name: string }; kind?: string }[] };
    expect(even.kind).toBe('ConfigMapList');
    expect(even.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(even.items.map((i) => i.metadata.name)).toEqual(['l0', 'l2', 'l4']);
    expect(even.items[0]!.kind).toBeUndefined();
    const byName = (await req('GET', '/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Dl3')).json() as { items: { metadata: { name: string } }[] };
    expect(byName.items.map((i) => i.metadata.name)).toEqual(['l3']);
    const badField = await req('GET', '/api/v1/namespaces/default/configmaps?fieldSelector=spec.foo%3Dx');
    expect(badField.status).toBe(400);
    expect(badField.json().message).toBe('field label not supported: spec.foo');
    const page1 = (await req('GET', '/api/v1/namespaces/default/configmaps?labelSelector=tier&limit=2')).json() as { metadata: { continue: string; remainingItemCount?: number }; items: { metadata: { name: string } }[] };
    expect(page1.items.map((i) => i.metadata.name)).toEqual(['l0', 'l1']);
    expect(page1.metadata.continue).toBeTruthy();
    const page2 = (await req('GET', `/api/v1/namespaces/default/configmaps?labelSelector=tier&limit=2&continue=${encodeURIComponent(page1.metadata.continue)}`)).json() as { items: { metadata: { name: string } }[] };
    expect(page2.items.map((i) => i.metadata.name)).toEqual(['l2', 'l3']);
  }, 60_000);

  it('list items are exactly the objects a GET from etcd returns: after creates (item JSON shared with the create response), an update and a dryRun', async () => {
    const ns = '/api/v1/namespaces/default/pods';
    const created: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await req('POST', ns, { ...pod(`same${i}`), metadata: { name: `same${i}`, labels: { set: 'same' } } });
      expect(r.status).toBe(201);
      created.push(r.body);
    }
    expect((await req('POST', `${ns}?dryRun=All`, { ...pod('same-dry'), metadata: { name: 'same-dry', labels: { set: 'same' } } })).status).toBe(201);
    const live = JSON.parse(created[1]!) as Record<string, unknown> & { metadata: Record<string, unknown> };
    live.metadata.labels = { set: 'same', changed: 'yes' };
    expect((await req('PUT', `${ns}/same1`, live)).status).toBe(200);
    const withoutType = (text: string) => {
      const { kind: _k, apiVersion: _a, ...rest } = JSON.parse(text) as Record<string, unknown>;
      return JSON.stringify(rest);
    };
    for (const q of ['', '&resourceVersion=0']) {
      const list = await req('GET', `${ns}?labelSelector=set%3Dsame${q}`);
      const items = (JSON.parse(list.body) as { items: unknown[] }).items.map((o) => JSON.stringify(o));
      const gets = await Promise.all(['same0', 'same1', 'same2', 'same3'].map(async (n) => withoutType((await req('GET', `${ns}/${n}`)).body)));
      expect(items).toEqual(gets);
    }
    expect(withoutType(created[0]!)).toBe(JSON.stringify((JSON.parse((await req('GET', `${ns}?labelSelector=set%3Dsame`)).body) as { items: unknown[] }).items[0]));
    // The 201 (built from the item's JSON) has the same bytes as a GET of the unchanged object.
    expect(created[0]).toBe((await req('GET', `${ns}/same0`)).body);
  }, 60_000);

  it('a list larger than one write streams out with its Content-Length; its bytes equal the gzipped answer\'s', async () => {
    const ns = '/api/v1/namespaces/default/configmaps';
    const filler = 'x'.repeat(1024);
    for (let i = 0; i < 120; i++) expect((await req('POST', ns, { ...cm(`big${String(i).padStart(3, '0')}`, { labels: { set: 'big' } }), data: { filler } })).status).toBe(201);
    /** The raw body bytes (gunzipped when the server compressed them) and headers. */
    const raw = (headers: Record<string, string>) =>
      new Promise<{ body: Buffer; headers: Record<string, unknown> }>((resolve, reject) => {
        const pki = api.layout.pki;
        const r = request(`${api.layout.url}${ns}?labelSelector=set%3Dbig&resourceVersion=0`, { ca: readFileSync(pki.ca.cert), cert: readFileSync(pki.admin.cert), key: readFileSync(pki.admin.key), headers: { Accept: 'application/json', ...headers } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const body = Buffer.concat(chunks);
            resolve({ body: res.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body, headers: res.headers });
          });
        });
        r.on('error', reject);
        r.end();
      });
    const streamed = await raw({});
    expect(streamed.body.length).toBeGreaterThan(128 * 1024);
    expect(streamed.headers['content-length']).toBe(String(streamed.body.length));
    const zipped = await raw({ 'Accept-Encoding': 'gzip' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(streamed.body.equals(zipped.body)).toBe(true);
    const list = JSON.parse(streamed.body.toString('utf8')) as { kind: string; items: { metadata: { name: string }; data: { filler: string } }[] };
    expect(list.kind).toBe('ConfigMapList');
    expect(list.items.map((i) => i.metadata.name)).toEqual(Array.from({ length: 120 }, (_, i) => `big${String(i).padStart(3, '0')}`));
    expect(list.items.every((i) => i.data.filler === filler)).toBe(true);
    expect(streamed.body.toString('utf8').endsWith(']}\n')).toBe(true);
  }, 120_000);

  it('Tables (includeObject) and PartialObjectMetadata', async () => {
    const table = await req('GET', '/api/v1/namespaces/default/configmaps?labelSelector=tier%3Dodd', undefined, { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' });
    expect(table.headers['content-type']).toBe('application/json;as=Table;v=v1;g=meta.k8s.io');
    const t = table.json() as { kind: string; apiVersion: string; metadata: { resourceVersion: string }; columnDefinitions: { name: string }[]; rows: { cells: unknown[]; object: { kind: string; metadata: { name: string } } }[] };
    expect(t.kind).toBe('Table');
    expect(t.apiVersion).toBe('meta.k8s.io/v1');
    expect(t.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(t.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Data', 'Age']);
    expect(t.rows.map((r) => r.cells.slice(0, 2))).toEqual([['l1', 1], ['l3', 1]]);
    expect(t.rows[0]!.object.kind).toBe('PartialObjectMetadata');
    const none = (await req('GET', '/api/v1/namespaces/default/configmaps/l1?includeObject=None', undefined, { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' })).json() as { rows: { object?: unknown }[] };
    expect(none.rows[0]!.object).toBeUndefined();
    const partial = (await req('GET', '/api/v1/namespaces/default/configmaps/l1', undefined, { Accept: 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io' })).json() as { kind: string; metadata: { name: string }; data?: unknown };
    expect(partial).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'l1' } });
    expect(partial.data).toBeUndefined();
    const yaml = await req('GET', '/api/v1/namespaces/default/configmaps/l1', undefined, { Accept: 'application/yaml' });
    expect(yaml.headers['content-type']).toBe('application/yaml');
    expect(yaml.body).toContain('kind: ConfigMap');
    const proto = await req('GET', '/api/v1/namespaces/default/configmaps/l1', undefined, { Accept: 'application/vnd.kubernetes.protobuf' });
    expect(proto.status).toBe(406);
  }, 30_000);

  it('discovery: aggregated v2 with ETag/304, legacy fallback, scale subresource entry', async () => {
    const accept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
    const agg = await req('GET', '/apis', undefined, { Accept: accept });
    expect(agg.headers['content-type']).toBe('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    expect(agg.headers.vary).toBe('Accept');
    const etag = agg.headers.etag as string;
    expect(etag).toMatch(/^"[0-9A-F]+"$/);
    expect((await req('GET', '/apis', undefined, { Accept: accept, 'If-None-Match': etag })).status).toBe(304);
    const apps = (agg.json() as { items: { metadata: { name: string }; versions: { resources: { resource: string; subresources?: { subresource: string; responseKind: unknown }[] }[] }[] }[] }).items.find((g) => g.metadata.name === 'apps')!;
    const deploy = apps.versions[0]!.resources.find((r) => r.resource === 'deployments')!;
    expect(deploy.subresources!.find((s) => s.subresource === 'scale')!.responseKind).toEqual({ group: 'autoscaling', version: 'v1', kind: 'Scale' });
    const legacy = (await req('GET', '/apis/apps/v1', undefined, { Accept: 'application/json' })).json() as { resources: Record<string, unknown>[] };
    expect(legacy.resources.find((r) => r.name === 'deployments/scale')).toEqual({ name: 'deployments/scale', singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
    expect(legacy.resources.find((r) => r.name === 'deployments')!.storageVersionHash).toMatch(/^[A-Za-z0-9+/]{11}=$/);
    const core = (await req('GET', '/api', undefined, { Accept: 'application/json' })).json();
    expect(core).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
  }, 30_000);

  it('health: /readyz?verbose lists the etcd check; /livez, /healthz ok', async () => {
    const v = await req('GET', '/readyz?verbose');
    expect(v.status).toBe(200);
    expect(v.body).toContain('[+]etcd ok');
    expect(v.body.trim().endsWith('readyz check passed')).toBe(true);
    expect((await req('GET', '/livez')).body).toBe('ok');
    expect((await req('GET', '/healthz/etcd')).body).toBe('ok');
  }, 30_000);

  it('request traces: the ring buffer lists finished requests with their stages', async () => {
    await req('GET', '/api/v1/namespaces/default/configmaps/missing-for-trace');
    const list = (await req('GET', '/debug/pilothouse/traces')).json() as { items: { path: string; code: number; reason?: string; user?: { username: string }; stages: { stage: string; verdict: string }[]; verb: string }[] };
    const t = list.items.find((x) => x.path === '/api/v1/namespaces/default/configmaps/missing-for-trace')!;
    expect(t).toMatchObject({ verb: 'get', code: 404, reason: 'NotFound', user: { username: 'admin' } });
    expect(t.stages.map((s) => `${s.stage}:${s.verdict}`)).toEqual(['authentication:allow', 'audit:ok', 'authorization:allow', 'storage:error']);
  }, 30_000);

  it('request traces stream as NDJSON with ?watch=true: the buffer first, then each finished request', async () => {
    const pki = api.layout.pki;
    const lines: string[] = [];
    const stream = request(`${api.layout.url}/debug/pilothouse/traces?watch=true`, { ca: readFileSync(pki.ca.cert), cert: readFileSync(pki.admin.cert), key: readFileSync(pki.admin.key) }, (res) => {
      expect(res.statusCode).toBe(200);
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        buf += d;
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          lines.push(buf.slice(0, nl));
          buf = buf.slice(nl + 1);
        }
      });
    });
    stream.on('error', () => {});
    stream.end();
    try {
      const seen = (path: string) => lines.some((l) => (JSON.parse(l) as { path: string }).path === path);
      const deadline = Date.now() + 15_000;
      while (!seen('/api/v1/namespaces/default/configmaps/missing-for-trace') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(seen('/api/v1/namespaces/default/configmaps/missing-for-trace')).toBe(true);
      await req('GET', '/api/v1/namespaces/default/configmaps/live-trace');
      while (!seen('/api/v1/namespaces/default/configmaps/live-trace') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const live = lines.map((l) => JSON.parse(l) as { path: string; code: number; latencyMs: number; decision: string }).find((t) => t.path === '/api/v1/namespaces/default/configmaps/live-trace');
      expect(live).toMatchObject({ code: 404, decision: 'allowed' });
      expect(live!.latencyMs).toBeGreaterThan(0);
    } finally {
      stream.destroy();
    }
  }, 30_000);
});
