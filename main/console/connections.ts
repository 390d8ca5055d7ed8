// The console's saved connections: DIR/console/connections.json (0600), one
// profile per cluster it can attach to — etcd members (endpoints and the
// CA/cert/key files etcdctl takes), a kubeconfig context, or both. Files are
// referenced by path, never copied. A profile arrives from the page as any
// JSON: checkConnectionDraft holds it to the documented shape, field by
// field, before it is saved or attached to.

import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import type { ConnectionDraft, ConnectionEntry, ConnectionProfile } from '../../preload/contract';
import type { AttachOptions } from './attachedCluster';

/** The embedded plane's id in the switcher; no saved connection takes it. */
export const LAB_ID = 'lab';
export const LAB_ENTRY: ConnectionEntry = { id: LAB_ID, name: 'lab (embedded)', kind: 'lab', writable: true };

export function connectionsFile(dataDir: string): string {
  return join(dataDir, 'console', 'connections.json');
}

function objectOf(raw: unknown, what: string, fields: readonly string[]): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error(`${what} must be an object: { ${fields.join(', ')} }`);
  const r = raw as Record<string, unknown>;
  for (const k of Object.keys(r)) if (!fields.includes(k)) throw new Error(`${what}.${k}: no such field (known: ${fields.join(', ')})`);
  return r;
}

function optionalString(r: Record<string, unknown>, what: string, name: string): string | undefined {
  const v = r[name];
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'string') throw new Error(`${what}.${name} must be a string, not ${JSON.stringify(v)}`);
  return v.trim() === '' ? undefined : v.trim();
}

function filePath(r: Record<string, unknown>, what: string, name: string, exists: (p: string) => boolean): string | undefined {
  const v = optionalString(r, what, name);
  if (v === undefined) return undefined;
  if (!isAbsolute(v)) throw new Error(`${what}.${name} must be an absolute path, not ${JSON.stringify(v)}`);
  if (!exists(v)) throw new Error(`${what}.${name} ${v}: no such file`);
  return v;
}

/** An endpoint as etcdctl takes it: http(s)://host:port, or a bare host:port (http). */
function checkEndpoint(e: string): string {
  const url = e.includes('://') ? e : `http://${e}`;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`etcd.endpoints: ${JSON.stringify(e)} is not a URL (want https://host:port)`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`etcd.endpoints: ${JSON.stringify(e)} must be http:// or https://`);
  if (!u.port) throw new Error(`etcd.endpoints: ${JSON.stringify(e)} has no port (etcd's client port is usually 2379)`);
  return e.replace(/\/+$/, '');
}

const DRAFT_FIELDS = ['id', 'name', 'etcd', 'kube', 'writable'] as const;
const ETCD_FIELDS = ['endpoints', 'cacert', 'cert', 'key'] as const;
const KUBE_FIELDS = ['kubeconfig', 'context', 'auditLog'] as const;

/** Throws with the field and the reason on anything but the documented shape; files must exist. */
export function checkConnectionDraft(raw: unknown, exists: (p: string) => boolean = existsSync): ConnectionDraft & { id?: string } {
  const r = objectOf(raw, 'connection', DRAFT_FIELDS);
  const id = optionalString(r, 'connection', 'id');
  const name = optionalString(r, 'connection', 'name');
  if (!name) throw new Error('connection.name is required');
  if (name.length > 100) throw new Error('connection.name is longer than 100 characters');
  if (typeof r.writable !== 'boolean') throw new Error(`connection.writable must be true or false, not ${JSON.stringify(r.writable)}`);
  let etcd: ConnectionDraft['etcd'];
  if (r.etcd !== undefined) {
    const e = objectOf(r.etcd, 'etcd', ETCD_FIELDS);
    const list = e.endpoints;
    if (!Array.isArray(list) || list.some((x) => typeof x !== 'string')) throw new Error('etcd.endpoints must be a list of URLs');
    const endpoints = (list as string[]).map((x) => x.trim()).filter((x) => x !== '').map(checkEndpoint);
    if (endpoints.length === 0) throw new Error('etcd.endpoints: give at least one endpoint');
    const cacert = filePath(e, 'etcd', 'cacert', exists);
    const cert = filePath(e, 'etcd', 'cert', exists);
    const key = filePath(e, 'etcd', 'key', exists);
    if (Boolean(cert) !== Boolean(key)) throw new Error('etcd.cert and etcd.key go together');
    etcd = { endpoints, ...(cacert && { cacert }), ...(cert && { cert }), ...(key && { key }) };
  }
  let kube: ConnectionDraft['kube'];
  if (r.kube !== undefined) {
    const k = objectOf(r.kube, 'kube', KUBE_FIELDS);
    const kubeconfig = filePath(k, 'kube', 'kubeconfig', exists);
    if (!kubeconfig) throw new Error('kube.kubeconfig is required');
    const context = optionalString(k, 'kube', 'context');
    const auditLog = filePath(k, 'kube', 'auditLog', () => true);
    kube = { kubeconfig, ...(context && { context }), ...(auditLog && { auditLog }) };
  }
  if (!etcd && !kube) throw new Error('a connection needs etcd endpoints, a kubeconfig, or both');
  if (id === LAB_ID) throw new Error(`connection.id "${LAB_ID}" is the embedded lab's`);
  return { ...(id && { id }), name, ...(etcd && { etcd }), ...(kube && { kube }), writable: r.writable };
}

export function connectionKind(c: ConnectionDraft): ConnectionEntry['kind'] {
  return c.etcd && c.kube ? 'etcd+kube' : c.etcd ? 'etcd' : 'kube';
}

/** What AttachedCluster takes for a profile. */
export function attachOptionsOf(c: ConnectionProfile, contextFile?: string): AttachOptions {
  const { auditLog, ...kube } = c.kube ?? { kubeconfig: '' };
  return { name: c.name, ...(c.etcd && { etcd: c.etcd }), ...(c.kube && { kube }), ...(auditLog && { auditLog }), writable: c.writable, ...(contextFile && { contextFile }) };
}

/** DIR/console/connections.json: read on every call (small), written whole through a temp file. */
export class ConnectionStore {
  constructor(
    readonly file: string,
    private readonly newId: () => string = () => `c-${randomBytes(4).toString('hex')}`,
  ) {}

  list(): ConnectionProfile[] {
    if (!existsSync(this.file)) return [];
    const data = JSON.parse(readFileSync(this.file, 'utf8')) as { connections?: unknown };
    if (!Array.isArray(data.connections)) throw new Error(`${this.file}: no connections list`);
    // a saved file is checked as a request is, but a certificate since removed does not hide the profile
    return data.connections.map((c) => {
      const checked = checkConnectionDraft(c, () => true);
      if (!checked.id) throw new Error(`${this.file}: a connection without an id`);
      return checked as ConnectionProfile;
    });
  }

  get(id: string): ConnectionProfile | undefined {
    return this.list().find((c) => c.id === id);
  }

  /** A new profile (no id, or an id not saved) or one replaced; names are unique. */
  save(draft: ConnectionDraft & { id?: string }): ConnectionProfile {
    const all = this.list();
    const clash = all.find((c) => c.name === draft.name && c.id !== draft.id);
    if (clash) throw new Error(`a connection named "${draft.name}" exists already`);
    const profile: ConnectionProfile = { ...draft, id: draft.id ?? this.newId() };
    const i = all.findIndex((c) => c.id === profile.id);
    if (i >= 0) all[i] = profile;
    else all.push(profile);
    this.write(all);
    return profile;
  }

  /** Saves the draft under its name: the one of that name is replaced (the attachment `pilothouse web` was started with). */
  upsertByName(draft: ConnectionDraft): ConnectionProfile {
    const same = this.list().find((c) => c.name === draft.name);
    return this.save({ ...draft, ...(same && { id: same.id }) });
  }

  delete(id: string): boolean {
    const all = this.list();
    const kept = all.filter((c) => c.id !== id);
    if (kept.length === all.length) return false;
    this.write(kept);
    return true;
  }

  private write(connections: ConnectionProfile[]): void {
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, `${JSON.stringify({ connections }, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, this.file);
  }
}
