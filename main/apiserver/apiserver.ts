// The API server, assembled: the etcd client and store (protobuf or JSON
// codec), one watch cache per resource, the service allocators, the REST
// scopes, discovery/health/OpenAPI, the handler chain and the secure port.
// `pilothouse apiserver` (main/cmd/apiserver.ts) parses the
// flags into ApiServerConfig and calls startApiServer.
//
// Startup order, as kube-apiserver: storage first (every watch cache has
// listed), then the bootstrap objects, then serve. /readyz turns ready once
// the bootstrap objects exist; /livez and /healthz check etcd.

import type { KObject } from '../kube/object';
import type { ResourceDef } from './registry/rest/resourceDef';
import { createServiceAllocators } from './registry/allocator/serviceAllocators';
import { codecFor } from '../kube/codec';
import { EtcdClient } from '../client/etcd/etcdClient';
import { EtcdStore } from './storage/etcdStore';
import { StorageError, type Storage } from './storage/interface';
import { WatchCache } from './storage/watchCache';
import { createDiscoveryHandler } from './discovery/discoveryHandler';
import { timedCheck, type HealthCheck } from './discovery/health';
import { namespaceLifecycle } from './admission/namespaceLifecycle';
import { keyFor, scopeFor, type ResourceScope, type RestServices } from './registry/store/scope';
import { createInStore } from './registry/store/create';
import { SYSTEM_APISERVER, type WriteRequest } from './registry/store/writeRequest';
import { x509Authenticator } from './authn/authenticator';
import { alwaysAllow, authorize, type Authorizer } from './authz/authorizer';
import type { ServerEnv } from './serverEnv';
import type { PostStartHook } from './serverPlugins';
import type { ApiServerConfig } from './config';
import { compose } from './server/handlerChain';
import { serveSecurely, type SecureServer } from './server/httpsServer';
import { createRouter } from './endpoints/router';
import { DEFAULT_TRACE_BUFFER_SIZE, RequestTraceLog } from './server/traceLog';
import { withAuditHook, withFailedAuthenticationAudit } from './server/filters/withAuditHook';
import { withAuthentication } from './server/filters/withAuthentication';
import { withAuthorization } from './server/filters/withAuthorization';
import { withPanicRecovery } from './server/filters/withPanicRecovery';
import { withRequestInfo } from './server/filters/withRequestInfo';
import { withMaxInFlightLimit } from './server/filters/withMaxInFlightLimit';
import { withRequestTimeout } from './server/filters/withRequestTimeout';
import { RequestDeadlines } from './server/requestDeadlines';
import { DEFAULT_REQUEST_LIMITS } from './server/requestLimits';

export interface RunningApiServer {
  port: number;
  url: string;
  traces: RequestTraceLog;
  stop(): Promise<void>;
}

export async function startApiServer(cfg: ApiServerConfig): Promise<RunningApiServer> {
  const log = cfg.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const prefix = cfg.etcdPrefix.replace(/\/+$/, '');
  const client = new EtcdClient({ endpoints: cfg.etcdServers, tls: cfg.etcdTls, transport: cfg.etcdClientTransport });
  const store = new EtcdStore({ client, codec: codecFor(cfg.storageMediaType) });
  const caches = new Map<string, WatchCache>();
  const scopes = new Map<string, ResourceScope>();
  const groupResource = (resource: string, group = '') => (group ? `${resource}.${group}` : resource);

  const storageFor = (resource: string, group = ''): Storage => {
    const c = caches.get(groupResource(resource, group));
    if (c) return c;
    // Not a served resource (e.g. RangeAllocation under /registry/ranges): the etcd store itself.
    return store;
  };
  const allocators = createServiceAllocators({ storage: store, prefix, serviceCIDR: cfg.serviceClusterIpRange, nodePortRange: cfg.serviceNodePortRange });
  const services: RestServices = { etcdPrefix: prefix, storageFor, allocators, admission: [], now: () => new Date() };
  const plugins = cfg.plugins ?? {};

  // The env is handed to plugin factories now; what it reaches (caches,
  // scopes, the authorizer chain) is filled in below before any request is served.
  let authorizers: Authorizer[] = [alwaysAllow];
  let resources: ResourceDef[] = cfg.resources;
  const env: ServerEnv = {
    etcdPrefix: prefix,
    storageFor,
    keyFor: (resource, group, namespace, name) => {
      const scope = [...scopes.values()].find((s) => s.def.resource === resource && s.def.group === group);
      if (!scope) throw new Error(`keyFor: ${groupResource(resource, group)} is not served`);
      return keyFor(scope, namespace, name);
    },
    resources: () => resources,
    authorize: (attrs) => authorize(authorizers, attrs),
    createObject: (obj) => createInternally(obj, resources, scopes),
    now: () => services.now(),
    log,
  };
  const decorators = (plugins.decorateResources ?? []).map((f) => f(env));
  resources = [...cfg.resources, ...(plugins.extraResources ?? []).flatMap((f) => f(env))].map((def) => decorators.reduce((d, decorate) => decorate(d), def));
  authorizers = plugins.authorizers?.(env) ?? [alwaysAllow];
  // Encryption at rest must be in place before the watch caches read anything.
  if (plugins.valueTransformer) store.transformer = plugins.valueTransformer(env);
  // NamespaceLifecycle alone unless the admission chain is configured (it then names NamespaceLifecycle itself, first).
  services.admission.push(...(plugins.admission?.(env) ?? [namespaceLifecycle(services)]));
  for (const def of resources) {
    const gr = groupResource(def.resource, def.group);
    if (def.virtualCreate) {
      // Computed, never stored: no watch cache.
      scopes.set(`${def.group}/${def.version}/${def.resource}`, scopeFor(def, store, services));
      continue;
    }
    let cache = caches.get(gr);
    if (!cache) {
      cache = new WatchCache({
        store,
        prefix: `${prefix}/${def.storagePrefix}/`,
        capacity: cfg.watchCacheSizes.get(gr) ?? cfg.defaultWatchCacheSize,
        bookmarkType: { apiVersion: def.group ? `${def.group}/${def.version}` : def.version, kind: def.kind },
      });
      caches.set(gr, cache);
    }
    scopes.set(`${def.group}/${def.version}/${def.resource}`, scopeFor(def, cache, services));
  }
  await Promise.all([...caches.values()].map((c) => c.start()));
  log(`apiserver: watch caches ready for ${caches.size} resources`);

  let bootstrapped = false;
  if (cfg.bootstrapObjects) {
    await createBootstrapObjects(cfg.bootstrapObjects(cfg.serviceClusterIpRange), resources, scopes, log);
  }
  bootstrapped = true;
  const hooksDone = new Set<string>();
  const runHook = async (h: PostStartHook): Promise<void> => {
    await h.run(env);
    hooksDone.add(h.name);
    log(`apiserver: post-start hook ${h.name} done`);
  };
  // Hooks run in the background, as kube's post-start hooks: /readyz stays not ready until each has finished.
  const postStart = plugins.postStartHooks ?? [];
  for (const h of postStart) {
    void runHook(h).catch((err) => log(`apiserver: post-start hook ${h.name} failed: ${err instanceof Error ? err.message : String(err)}`));
  }
  const hookChecks: HealthCheck[] = postStart.map((h) => ({
    name: `poststarthook/${h.name}`,
    check: async () => {
      if (!hooksDone.has(h.name)) throw new Error('not finished');
    },
  }));

  const etcdCheck = timedCheck('etcd', 2000, () => store.currentRevision());
  const ping: HealthCheck = { name: 'ping', check: async () => {} };
  const logCheck: HealthCheck = { name: 'log', check: async () => {} };
  const bootstrapCheck: HealthCheck = {
    name: 'poststarthook/bootstrap-objects',
    check: async () => {
      if (!bootstrapped) throw new Error('not finished');
    },
  };
  const cacheCheck: HealthCheck = {
    name: 'informer-sync',
    check: async () => {
      for (const c of caches.values()) if (!c.settled) throw new Error(`${c.prefix} not synced`);
    },
  };
  const auditSinks = (plugins.auditSinks ?? []).map((f) => f(env));
  const traces = new RequestTraceLog(cfg.traceBufferSize ?? DEFAULT_TRACE_BUFFER_SIZE);
  const meta = createDiscoveryHandler({
    resources: () => resources,
    serverAddress: `${cfg.bindAddress}:${cfg.securePort}`,
    health: { livez: [ping, logCheck, etcdCheck], readyz: [ping, logCheck, etcdCheck, cacheCheck, bootstrapCheck, ...hookChecks] },
    openapi: cfg.openapi?.(resources),
  });
  const router = createRouter({ lookup: (g, v, r) => scopes.get(`${g}/${v}/${r}`), meta, traces, log });
  const limits = cfg.limits ?? DEFAULT_REQUEST_LIMITS;
  const deadlines = new RequestDeadlines();
  const chain = compose(
    [
      withPanicRecovery(log),
      withRequestInfo(),
      withRequestTimeout(limits.requestTimeoutMs, deadlines),
      withFailedAuthenticationAudit(auditSinks),
      withAuthentication([x509Authenticator(), ...(plugins.authenticators?.(env) ?? [])]),
      withAuditHook(auditSinks),
      ...(plugins.requestFilters?.(env) ?? []),
      withMaxInFlightLimit(limits.maxRequestsInflight, limits.maxMutatingRequestsInflight),
      withAuthorization(authorizers),
    ],
    router,
  );
  let secure: SecureServer;
  try {
    secure = await serveSecurely(cfg, chain, traces, { requestTimeoutMs: limits.requestTimeoutMs, log });
  } catch (err) {
    deadlines.close();
    await Promise.all([...caches.values()].map((c) => c.close()));
    await store.close();
    throw err;
  }
  const url = `https://${cfg.bindAddress.includes(':') ? `[${cfg.bindAddress}]` : cfg.bindAddress}:${secure.port}`;
  return {
    port: secure.port,
    url,
    traces,
    async stop() {
      await secure.close();
      deadlines.close();
      for (const sink of auditSinks) await sink.close?.();
      await Promise.all([...caches.values()].map((c) => c.close()));
      await store.close();
    },
  };
}

/**
 * Creates each bootstrap object that does not exist yet, through the create
 * lifecycle (defaults, allocations, system fields, validation) as the
 * system:apiserver user — so the default/kubernetes Service holds its
 * allocated IP exactly as one made by a client would.
 */
async function createBootstrapObjects(objs: KObject[], defs: ResourceDef[], scopes: Map<string, ResourceScope>, log: (l: string) => void): Promise<void> {
  const served = objs.flatMap((obj) => {
    const [group, version] = obj.apiVersion!.includes('/') ? obj.apiVersion!.split('/') : ['', obj.apiVersion!];
    const def = defs.find((d) => d.group === group && d.version === version && d.kind === obj.kind);
    if (!def) log(`apiserver: not creating ${obj.kind} ${obj.metadata.name}: ${obj.apiVersion} ${obj.kind} is not served`);
    return def ? [{ obj, def, scope: scopes.get(`${def.group}/${def.version}/${def.resource}`)!, ns: obj.metadata.namespace ?? '' }] : [];
  });
  type Item = (typeof served)[number];
  const missing = async ({ scope, ns, obj }: Item): Promise<boolean> => {
    try {
      await scope.storage.get(keyFor(scope, ns, obj.metadata.name!));
      return false;
    } catch (err) {
      if (!(err instanceof StorageError && err.code === 'KeyNotFound')) throw err;
      return true;
    }
  };
  const create = async ({ obj, def, scope, ns }: Item): Promise<void> => {
    try {
      await createInStore(scope, structuredClone(obj), internalWrite(ns));
      log(`apiserver: created ${def.resource}/${obj.metadata.name}${ns ? ` in ${ns}` : ''}`);
    } catch (err) {
      if ((err as { code?: number }).code !== 409) throw err;
    }
  };
  // Each is a quorum read and then a quorum write: all at once rather than
  // in turn. The namespaces before the objects that live in them.
  const wanted = await Promise.all(served.map(missing));
  const todo = served.filter((_, i) => wanted[i]);
  await Promise.all(todo.filter((it) => !it.ns).map(create));
  await Promise.all(todo.filter((it) => it.ns).map(create));
}

/** env.createObject: one object through the create lifecycle as system:apiserver. */
async function createInternally(obj: KObject, defs: ResourceDef[], scopes: Map<string, ResourceScope>): Promise<KObject> {
  const [group, version] = obj.apiVersion!.includes('/') ? obj.apiVersion!.split('/') : ['', obj.apiVersion!];
  const def = defs.find((d) => d.group === group && d.version === version && d.kind === obj.kind);
  if (!def) throw new Error(`createObject: ${obj.apiVersion} ${obj.kind} is not served`);
  const scope = scopes.get(`${def.group}/${def.version}/${def.resource}`)!;
  const ns = obj.metadata.namespace ?? '';
  return createInStore(scope, structuredClone(obj), internalWrite(ns));
}

/** The server's own write: as system:apiserver, field manager kube-apiserver, no request behind it. */
function internalWrite(namespace: string): WriteRequest {
  return { user: SYSTEM_APISERVER, namespace, dryRun: false, fieldManager: 'kube-apiserver', operation: 'Update' };
}
