// `pilothouse apiserver [kube-apiserver flags]`: the Kubernetes API server,
// with kube-apiserver's flag names (`--etcd-servers=...` or
// `--etcd-servers ...`). Prints one ready line once it serves; SIGTERM or
// SIGINT stops it gracefully (open watches end, storage closes) and it exits 0.

import type { Command } from 'commander';
import { startApiServer } from '../apiserver/apiserver';
import type { ApiServerConfig } from '../apiserver/config';
import { allResources } from '../apiserver/registry/index';
import { openApiDocument, openApiIndex, openApiV2 } from '../apiserver/discovery/openapi';
import { apiServerOptionGroups } from '../apiserver/options/index';
import { guardProcess } from '../apiserver/server/processGuard';
import { GIT_VERSION } from '../apiserver/discovery/version';
import { versionLine } from '../common/version';

export function registerApiServerCommand(program: Command, setExitCode: (code: number) => void): void {
  const cmd = program.command('apiserver').description('run the Kubernetes API server (kube-apiserver flags) over the etcd cluster');
  for (const group of apiServerOptionGroups) group.register(cmd);
  cmd.action(async (flags: Record<string, unknown>) => {
    setExitCode(await runApiServerCommand(flags));
  });
}

/**
 * The served resources and OpenAPI; every other field is left empty here and
 * set by a flag group (main/apiserver/options/) from the parsed flags.
 */
function baseConfig(): ApiServerConfig {
  return {
    resources: allResources(),
    openapi: (defs) => ({ index: () => openApiIndex(defs), document: (gv) => openApiDocument(defs, gv), v2: () => openApiV2(defs) }),
    plugins: {},
    etcdServers: [],
    etcdPrefix: '',
    storageMediaType: '',
    watchCacheSizes: new Map(),
    defaultWatchCacheSize: 0,
    bindAddress: '',
    securePort: 0,
    tlsCertFile: '',
    tlsPrivateKeyFile: '',
    serviceClusterIpRange: '',
    serviceNodePortRange: '',
  };
}

export async function runApiServerCommand(flags: Record<string, unknown>): Promise<number> {
  const cfg = baseConfig();
  try {
    for (const group of apiServerOptionGroups) await group.apply(flags, cfg);
  } catch (err) {
    process.stderr.write(`Error: ${(err as Error).message}\n`);
    return 1;
  }
  // kube-apiserver logs its version first thing; this one names its build too.
  process.stderr.write(`apiserver: Version: ${GIT_VERSION} (pilothouse ${versionLine()})\n`);
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
