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
  /** Closes what this access opened (nothing when the caller owns the clients). */
  close(): void;
}

/** How to reach the members, known without connecting: for the commands the steps show. */
export interface ClusterAddress {
  members: { name: string; url: string }[];
  /** etcdctl's TLS flags (--cacert, --cert, --key), or '' for plain http. */
  tlsFlags: string;
}

/** The variables of DIR/etcdctl.env; throws when DIR holds no cluster. */
export function readEtcdctlEnv(dataDir: string): Record<string, string> {
  const file = join(dataDir, 'etcdctl.env');
  if (!existsSync(file)) throw new Error(`${file} not found: is ${dataDir} a data dir made by \`pilothouse up\`?`);
  return parseEnvFile(readFileSync(file, 'utf8'));
}

export interface DataDirAccess {
  address: ClusterAddress;
  connect(): BackupCluster;
}

export function dataDirAccess(dataDir: string): DataDirAccess {
  const env = readEtcdctlEnv(dataDir);
  const urls = (env.ETCDCTL_ENDPOINTS ?? '').split(',').filter((u) => u !== '').map((u) => (u.includes('://') ? u : `http://${u}`));
  if (urls.length === 0) throw new Error(`no ETCDCTL_ENDPOINTS in ${join(dataDir, 'etcdctl.env')}`);
  const flags: string[] = [];
  if (env.ETCDCTL_CACERT) flags.push(`--cacert=${env.ETCDCTL_CACERT}`);
  if (env.ETCDCTL_CERT) flags.push(`--cert=${env.ETCDCTL_CERT}`);
  if (env.ETCDCTL_KEY) flags.push(`--key=${env.ETCDCTL_KEY}`);
  const address = { members: urls.map((url, i) => ({ name: `m${i + 1}`, url })), tlsFlags: flags.join(' ') };
  return {
    address,
    connect() {
      let tls: ClientPem | undefined;
      if (env.ETCDCTL_CERT && env.ETCDCTL_KEY) {
        tls = { cert: readFileSync(env.ETCDCTL_CERT), key: readFileSync(env.ETCDCTL_KEY), ...(env.ETCDCTL_CACERT ? { ca: readFileSync(env.ETCDCTL_CACERT) } : {}) };
      }
      const members = address.members.map((m) => ({ ...m, client: new MemberClient(m.url, tls) }));
      return {
        members,
        close: () => {
          for (const m of members) m.client.close();
        },
      };
    },
  };
}

/** etcdctl's flags for these members (all of them, or the one named). */
export function etcdctlFlags(a: ClusterAddress, member?: string): string {
  const urls = a.members.filter((m) => member === undefined || m.name === member).map((m) => m.url);
  return [`--endpoints=${urls.join(',')}`, ...(a.tlsFlags ? [a.tlsFlags] : [])].join(' ');
}
