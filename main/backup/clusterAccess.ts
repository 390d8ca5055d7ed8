// The members a backup talks to, found from a data dir as `pilothouse up`
// lays it out: DIR/etcdctl.env names the client URLs (member i is m<i>, in
// that order, as controlplane/localCluster.ts lays them out) and the CA and
// client certificate. The console hands over its own members instead.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MemberClient } from '../client/etcd/memberClient';
import type { ClientPem } from '../common/tlsChannel';
import { parseEnvFile } from '../controlplane/envFile';

export interface BackupMember {
  name: string;
  /** The client URL (https://127.0.0.1:2379). */
  url: string;
  client: MemberClient;
}

export interface BackupCluster {
  members: BackupMember[];
  /** What etcdctl needs to reach the same members, for the commands a step shows. */
  etcdctlFlags: string;
  /** Closes what this access opened (nothing when the caller owns the clients). */
  close(): void;
}

/** The variables of DIR/etcdctl.env; throws when DIR holds no cluster. */
export function readEtcdctlEnv(dataDir: string): Record<string, string> {
  const file = join(dataDir, 'etcdctl.env');
  if (!existsSync(file)) throw new Error(`${file} not found: is ${dataDir} a data dir made by \`pilothouse up\`?`);
  return parseEnvFile(readFileSync(file, 'utf8'));
}

export function connectDataDir(dataDir: string): BackupCluster {
  const env = readEtcdctlEnv(dataDir);
  const urls = (env.ETCDCTL_ENDPOINTS ?? '').split(',').filter((u) => u !== '').map((u) => (u.includes('://') ? u : `http://${u}`));
  if (urls.length === 0) throw new Error(`no ETCDCTL_ENDPOINTS in ${join(dataDir, 'etcdctl.env')}`);
  let tls: ClientPem | undefined;
  if (env.ETCDCTL_CERT && env.ETCDCTL_KEY) {
    tls = { cert: readFileSync(env.ETCDCTL_CERT), key: readFileSync(env.ETCDCTL_KEY), ...(env.ETCDCTL_CACERT ? { ca: readFileSync(env.ETCDCTL_CACERT) } : {}) };
  }
  const members = urls.map((url, i) => ({ name: `m${i + 1}`, url, client: new MemberClient(url, tls) }));
  const flags = [`--endpoints=${urls.join(',')}`];
  if (env.ETCDCTL_CACERT) flags.push(`--cacert=${env.ETCDCTL_CACERT}`);
  if (env.ETCDCTL_CERT) flags.push(`--cert=${env.ETCDCTL_CERT}`);
  if (env.ETCDCTL_KEY) flags.push(`--key=${env.ETCDCTL_KEY}`);
  return {
    members,
    etcdctlFlags: flags.join(' '),
    close: () => {
      for (const m of members) m.client.close();
    },
  };
}
