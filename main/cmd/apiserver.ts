// `pilothouse apiserver [kube-apiserver flags]`: the Kubernetes API server,
// with kube-apiserver's flag names (`--etcd-servers=...` or
// `--etcd-servers ...`). Prints one ready line once it serves; SIGTERM or
// SIGINT stops it gracefully (open watches end, storage closes) and it exits 0.

import type { Command } from 'commander';
import { startApiServer } from '../apiserver/apiserver';
import type { ApiServerConfig } from '../apiserver/config';
import { allResources } from '../apiserver/registry/index';
import { bootstrapObjects } from '../apiserver/registry/bootstrap';
import { openApiDocument, openApiIndex, openApiV2 } from '../apiserver/discovery/openapi';
import { PROTOBUF_MEDIA_TYPE, JSON_MEDIA_TYPE } from '../kube/codec';
import type { OpenApiSource } from '../apiserver/discovery/discoveryHandler';
import type { ResourceDef } from '../apiserver/registry/rest/resourceDef';
import { apiServerOptionGroups } from '../apiserver/options/index';
import { guardProcess } from '../apiserver/server/processGuard';
import { intOption } from './intOption';

export interface ApiServerFlags {
  etcdServers: string;
  etcdCafile?: string;
  etcdCertfile?: string;
  etcdKeyfile?: string;
  etcdPrefix: string;
  storageMediaType: string;
  bindAddress: string;
  securePort: number;
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  clientCaFile?: string;
  serviceClusterIpRange: string;
  serviceNodePortRange: string;
  watchCacheSizes?: string;
  defaultWatchCacheSize: number;
  eventTtl: string;
  traceBufferSize: number;
}

/** --watch-cache-sizes: "resource[.group]#size,..." (kube's format). */
export function parseWatchCacheSizes(v: string | undefined): Map<string, number> {
  const m = new Map<string, number>();
  if (!v) return m;
  for (const item of v.split(',')) {
    const [res, size] = item.split('#');
    if (!res || size === undefined || !/^\d+$/.test(size)) throw new Error(`invalid value of watch cache size: ${item}`);
    m.set(res, Number(size));
  }
  return m;
}

/** Go duration subset for --event-ttl: 1h, 30m, 90s, 1h30m. */
export function parseDurationSeconds(v: string): number {
  const re = /(\d+(?:\.\d+)?)(h|m|s)/g;
  let total = 0;
  let matched = '';
  for (const m of v.matchAll(re)) {
    total += Number(m[1]) * (m[2] === 'h' ? 3600 : m[2] === 'm' ? 60 : 1);
    matched += m[0];
  }
  if (matched !== v || v === '') throw new Error(`invalid duration "${v}"`);
  return total;
}

export function registerApiServerCommand(program: Command, setExitCode: (code: number) => void): void {
  const cmd = program
    .command('apiserver')
    .description('run the Kubernetes API server (kube-apiserver flags) over the etcd cluster')
    .requiredOption('--etcd-servers <urls>', 'comma-separated etcd client URLs')
    .option('--etcd-cafile <file>', 'CA that signed the etcd members\' certificates')
    .option('--etcd-certfile <file>', 'client certificate for etcd')
    .option('--etcd-keyfile <file>', 'client key for etcd')
    .option('--etcd-prefix <prefix>', 'prefix of every key in etcd', '/registry')
    .option('--storage-media-type <type>', `how objects are stored: ${PROTOBUF_MEDIA_TYPE} or ${JSON_MEDIA_TYPE}`, PROTOBUF_MEDIA_TYPE)
    .option('--bind-address <ip>', 'address of the secure port', '127.0.0.1')
    .option('--secure-port <port>', 'HTTPS port', intOption('--secure-port', 0, 65535), 6443)
    .requiredOption('--tls-cert-file <file>', 'serving certificate')
    .requiredOption('--tls-private-key-file <file>', 'serving key')
    .option('--client-ca-file <file>', 'CA that authenticates client certificates (CN = user, O = groups)')
    .option('--service-cluster-ip-range <cidr>', 'range of Service cluster IPs', '10.96.0.0/12')
    .option('--service-node-port-range <range>', 'range of NodePorts', '30000-32767')
    .option('--watch-cache-sizes <list>', 'per-resource watch cache sizes: resource[.group]#size,...')
    .option('--default-watch-cache-size <n>', 'events each watch cache keeps (not adaptive here)', intOption('--default-watch-cache-size', 1, 10_000_000), 10_000)
    .option('--event-ttl <duration>', 'how long events are kept', '1h')
    .option('--trace-buffer-size <n>', 'request traces kept for /debug/pilothouse/traces', intOption('--trace-buffer-size', 1, 1_000_000), 1000);
  for (const group of apiServerOptionGroups) group.register(cmd);
  cmd.action(async (flags: ApiServerFlags) => {
    setExitCode(await runApiServerCommand(flags));
  });
}

export function configFromFlags(flags: ApiServerFlags, resources: ResourceDef[]): ApiServerConfig {
  if (flags.storageMediaType !== PROTOBUF_MEDIA_TYPE && flags.storageMediaType !== JSON_MEDIA_TYPE) {
    throw new Error(`--storage-media-type: unsupported media type "${flags.storageMediaType}"`);
  }
  const etcdTls = flags.etcdCertfile && flags.etcdKeyfile ? { caFile: flags.etcdCafile, certFile: flags.etcdCertfile, keyFile: flags.etcdKeyfile } : undefined;
  return {
    etcdServers: flags.etcdServers.split(',').map((s) => s.trim()).filter((s) => s !== ''),
    etcdTls,
    etcdPrefix: flags.etcdPrefix,
    storageMediaType: flags.storageMediaType,
    bindAddress: flags.bindAddress,
    securePort: flags.securePort,
    tlsCertFile: flags.tlsCertFile,
    tlsPrivateKeyFile: flags.tlsPrivateKeyFile,
    clientCaFile: flags.clientCaFile,
    serviceClusterIpRange: flags.serviceClusterIpRange,
    serviceNodePortRange: flags.serviceNodePortRange,
    watchCacheSizes: parseWatchCacheSizes(flags.watchCacheSizes),
    defaultWatchCacheSize: flags.defaultWatchCacheSize,
    traceBufferSize: flags.traceBufferSize,
    resources,
    bootstrapObjects: (cidr) => bootstrapObjects(cidr, flags.securePort),
    openapi: (defs): OpenApiSource => ({ index: () => openApiIndex(defs), document: (gv) => openApiDocument(defs, gv), v2: () => openApiV2(defs) }),
  };
}

/** --event-ttl: events are written with an etcd lease of this many seconds (kube's default 1h). */
export function withEventTtl(defs: ResourceDef[], seconds: number): ResourceDef[] {
  return defs.map((d) => (d.group === '' && d.resource === 'events' ? { ...d, ttlSeconds: () => seconds } : d));
}

export async function runApiServerCommand(flags: ApiServerFlags): Promise<number> {
  let cfg: ApiServerConfig;
  try {
    const eventTtl = parseDurationSeconds(flags.eventTtl);
    cfg = configFromFlags(flags, withEventTtl(allResources(), eventTtl));
    cfg.plugins ??= {};
    for (const group of apiServerOptionGroups) await group.apply(flags as unknown as Record<string, unknown>, cfg);
  } catch (err) {
    process.stderr.write(`Error: ${(err as Error).message}\n`);
    return 1;
  }
  const signalled = new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  // A signal while storage is still starting ends the process at once (nothing is served yet).
  const first = await Promise.race([startApiServer(cfg).then((server) => ({ server })), signalled.then((signal) => ({ signal }))]);
  if ('signal' in first) {
    process.stderr.write(`apiserver: received ${first.signal} while starting, exiting\n`);
    return 0;
  }
  const server = first.server;
  guardProcess((line) => process.stderr.write(`${line}\n`));
  process.stdout.write(
    `pilothouse apiserver: serving on ${server.url} (etcd ${cfg.etcdServers.join(',')}, storage ${cfg.storageMediaType}, prefix ${cfg.etcdPrefix})\n`,
  );
  const signal = await signalled;
  process.stderr.write(`apiserver: received ${signal}, shutting down\n`);
  const force = (): void => process.exit(1);
  process.once('SIGTERM', force);
  process.once('SIGINT', force);
  await server.stop();
  return 0;
}
