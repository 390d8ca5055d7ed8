// The live control plane under DIR as the backup tools see it from outside:
// its members' client URLs and the etcdctl client certificate (both from
// DIR/etcdctl.env, which `pilothouse up` and the console write), and a
// read-only look at its current revision. The drill reads it to say how far
// a snapshot is behind (RPO); the disaster recovery to bump revisions past it.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MemberClient } from '../client/etcd/memberClient';

export interface PlaneEndpoints {
  /** Client URLs, m1 first. */
  urls: string[];
  caFile?: string;
  certFile?: string;
  keyFile?: string;
}

/** DIR/etcdctl.env's ETCDCTL_* exports; undefined when DIR has none (no plane ever ran there). */
export function planeEndpoints(dataDir: string): PlaneEndpoints | undefined {
  const file = join(dataDir, 'etcdctl.env');
  if (!existsSync(file)) return undefined;
  const vars = new Map<string, string>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^export (ETCDCTL_\w+)=(.*)$/.exec(line.trim());
    if (m) vars.set(m[1]!, unquote(m[2]!));
  }
  const urls = (vars.get('ETCDCTL_ENDPOINTS') ?? '').split(',').filter((u) => u !== '');
  if (urls.length === 0) return undefined;
  return { urls: urls.map((u) => (u.includes('://') ? u : `http://${u}`)), caFile: vars.get('ETCDCTL_CACERT'), certFile: vars.get('ETCDCTL_CERT'), keyFile: vars.get('ETCDCTL_KEY') };
}

/** A shell word as etcdctlEnv writes it (plain, or single-quoted). */
function unquote(s: string): string {
  return s.startsWith("'") ? s.slice(1, -1).replace(/'\\''/g, "'") : s;
}

export interface LiveRevision {
  revision: number;
  /** The client URL that answered. */
  url: string;
}

/** Asks the members in turn for their status (no write, no linearizable read); the first answer's revision. */
export async function readLiveRevision(ep: PlaneEndpoints, timeoutMs = 1_500): Promise<LiveRevision> {
  const tls = ep.caFile && ep.certFile && ep.keyFile ? { ca: readFileSync(ep.caFile), cert: readFileSync(ep.certFile), key: readFileSync(ep.keyFile) } : undefined;
  const errors: string[] = [];
  for (const url of ep.urls) {
    const c = new MemberClient(url, tls);
    try {
      const st = await c.status(timeoutMs);
      return { revision: Number(st.header?.revision ?? 0), url };
    } catch (err) {
      errors.push(`${url}: ${(err as Error).message}`);
    } finally {
      c.close();
    }
  }
  throw new Error(`no member of the live cluster answered (${errors.join('; ')})`);
}
