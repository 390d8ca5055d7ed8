// The storage migration an upgrade runs after a change that alters how
// objects are stored, so that nothing stays in the old form:
//   - --encryption-provider-config: every resource the configuration names
//     (a new first provider, or a rotated key, writes under another key);
//   - --storage-media-type: every resource the API server serves.
// One StorageVersionMigration (storagemigration.k8s.io/v1alpha1) per
// resource, created through the API server; the controller manager's
// migrator rewrites every object and reports in its status. Before and
// after, the keyspace under /registry/ is counted per resource and encoding
// (storageCensus.ts), read from etcd as `etcdctl get` would, so the change
// can be seen and not only believed.

import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { RestClient } from '../client/kube/restClient';
import type { ApplyPlane } from './applyPlane';
import type { FlagSetting } from './flagSettings';
import { EtcdClient } from '../client/etcd/etcdClient';
import { storageCensus, type StorageCensus } from './storageCensus';

const SVM_PATH = '/apis/storagemigration.k8s.io/v1alpha1/storageversionmigrations';
const POLL_MS = 250;

export interface WantedMigration {
  /** The resource, as the encryption config names it ("secrets", "deployments.apps"), or "*.*" for every one. */
  resources: string[];
  reason: string;
}

export interface MigrationResult {
  group: string;
  resource: string;
  /** The StorageVersionMigration's name. */
  name: string;
  ok: boolean;
  detail: string;
  ms: number;
  /** Objects of the resource per encoding, before and after. */
  before?: Record<string, number>;
  after?: Record<string, number>;
}

/** What the settings' flag changes require to be rewritten. */
export function migrationsFor(settings: readonly FlagSetting[]): WantedMigration[] {
  const out: WantedMigration[] = [];
  for (const s of settings) {
    if (s.kind !== 'apiserver') continue;
    if (s.flag === 'encryption-provider-config') {
      const doc = parse(readFileSync(s.value, 'utf8')) as { resources?: { resources?: string[] }[] };
      const names = (doc.resources ?? []).flatMap((r) => r.resources ?? []);
      out.push({ resources: names, reason: `--encryption-provider-config=${s.value}` });
    } else if (s.flag === 'storage-media-type') {
      out.push({ resources: ['*.*'], reason: `--storage-media-type=${s.value}` });
    }
  }
  return out;
}

interface ApiResource {
  name: string;
  verbs?: string[];
}

interface Target {
  group: string;
  version: string;
  resource: string;
}

/** group/version/resource of every listable, updatable resource the API server serves (no subresources), preferred versions. */
async function servedResources(rest: RestClient): Promise<Target[]> {
  const out: Target[] = [];
  const add = (groupVersion: string, list: ApiResource[]) => {
    const [group, version] = groupVersion.includes('/') ? groupVersion.split('/') : ['', groupVersion];
    for (const r of list) if (!r.name.includes('/') && r.verbs?.includes('list') && r.verbs.includes('update')) out.push({ group: group!, version: version!, resource: r.name });
  };
  add('v1', (await rest.get<{ resources: ApiResource[] }>('/api/v1')).resources);
  const groups = await rest.get<{ groups: { name: string; preferredVersion: { groupVersion: string } }[] }>('/apis');
  for (const g of groups.groups) add(g.preferredVersion.groupVersion, (await rest.get<{ resources: ApiResource[] }>(`/apis/${g.preferredVersion.groupVersion}`)).resources);
  return out;
}

/** The resources the wanted migrations name, wildcards resolved against discovery, each once, at its preferred version. */
export async function resolveResources(rest: RestClient, wanted: WantedMigration[]): Promise<Target[]> {
  const served = await servedResources(rest);
  const out = new Map<string, Target>();
  for (const n of wanted.flatMap((w) => w.resources)) {
    const dot = n.indexOf('.');
    const resource = dot < 0 ? n : n.slice(0, dot);
    const group = dot < 0 ? '' : n.slice(dot + 1);
    const matches = served.filter((r) => (resource === '*' || r.resource === resource) && (group === '*' || r.group === group));
    if (matches.length === 0) throw new Error(`the API server serves no resource ${n} to migrate`);
    for (const r of matches) out.set(`${r.resource}.${r.group}`, r);
  }
  return [...out.values()];
}

interface SvmStatus {
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

async function waitMigration(rest: RestClient, name: string, deadline: number, log: (l: string) => void, signal?: AbortSignal): Promise<{ ok: boolean; detail: string }> {
  let last = '';
  while (Date.now() < deadline) {
    signal?.throwIfAborted();
    const svm = await rest.get<SvmStatus>(`${SVM_PATH}/${name}`).catch(() => undefined);
    const conds = svm?.status?.conditions ?? [];
    const on = (t: string) => conds.find((c) => c.type === t && c.status === 'True');
    const succeeded = on('Succeeded');
    if (succeeded) return { ok: true, detail: succeeded.message || 'Succeeded' };
    const failed = on('Failed');
    if (failed) return { ok: false, detail: `Failed: ${failed.reason ?? ''} ${failed.message ?? ''}`.trim() };
    const running = on('Running')?.message ?? '';
    if (running && running !== last) log(`  ${name}: ${running}`);
    last = running;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return { ok: false, detail: `not finished within the timeout${last ? ` (last: ${last})` : ''}` };
}

/** The census of the plane's keyspace, read through its members with the etcdctl certificate. */
async function censusOfPlane(plane: ApplyPlane): Promise<StorageCensus> {
  const tls = plane.etcdTls();
  const client = new EtcdClient({ endpoints: plane.members.map((m) => m.url), ...(tls && { tls }) });
  try {
    return await storageCensus(client);
  } finally {
    client.close();
  }
}

function countsOf(census: StorageCensus, resource: string): Record<string, number> {
  return census.resources[resource] ?? {};
}

export function formatCounts(c: Record<string, number> | undefined): string {
  const entries = Object.entries(c ?? {});
  return entries.length === 0 ? 'no objects' : entries.map(([k, n]) => `${n} ${k}`).join(', ');
}

export async function runMigrations(
  plane: ApplyPlane,
  wanted: WantedMigration[],
  runId: string,
  timeoutMs: number,
  log: (line: string) => void,
  signal?: AbortSignal,
): Promise<MigrationResult[]> {
  const rest = plane.rest();
  const targets = await resolveResources(rest, wanted);
  log(`storage migration of ${targets.map((t) => (t.group ? `${t.resource}.${t.group}` : t.resource)).join(', ')} (${wanted.map((w) => w.reason).join('; ')})`);
  const before = await censusOfPlane(plane);
  const results: MigrationResult[] = [];
  for (const t of targets) {
    const t0 = Date.now();
    const name = `upgrade-${runId}-${t.resource}${t.group ? `.${t.group}` : ''}`.toLowerCase().slice(0, 253);
    log(`${t.resource}: before: ${formatCounts(countsOf(before, t.resource))}; kubectl create -f - <<< '{"apiVersion":"storagemigration.k8s.io/v1alpha1","kind":"StorageVersionMigration","metadata":{"name":"${name}"},"spec":{"resource":{"group":"${t.group}","version":"${t.version}","resource":"${t.resource}"}}}'`);
    await rest.create(SVM_PATH, { apiVersion: 'storagemigration.k8s.io/v1alpha1', kind: 'StorageVersionMigration', metadata: { name }, spec: { resource: { group: t.group, version: t.version, resource: t.resource } } });
    const r = await waitMigration(rest, name, t0 + timeoutMs, log, signal);
    results.push({ group: t.group, resource: t.resource, name, ok: r.ok, detail: r.detail, ms: Date.now() - t0, before: countsOf(before, t.resource) });
    log(`${t.resource}: ${r.ok ? 'migrated' : 'FAILED'}: ${r.detail} (${Date.now() - t0} ms)`);
  }
  const after = await censusOfPlane(plane);
  for (const r of results) {
    r.after = countsOf(after, r.resource);
    log(`${r.resource}: after: ${formatCounts(r.after)}`);
  }
  return results;
}
