// What startApiServer needs to run: where etcd is, how objects are stored,
// where to serve, the resources and the pluggable parts. `pilothouse
// apiserver` builds it from kube-apiserver's flags (main/apiserver/options/).

import type { KObject } from '../kube/object';
import type { ChannelTransport } from '../client/etcd/etcdChannel';
import type { TlsFiles } from '../client/etcd/etcdClient';
import type { OpenApiSource } from './discovery/discoveryHandler';
import type { ResourceDef } from './registry/rest/resourceDef';
import type { RequestLimits } from './server/requestLimits';
import type { ServerPlugins } from './serverPlugins';

export interface ApiServerConfig {
  etcdServers: string[];
  etcdTls?: TlsFiles;
  /** --etcd-client-transport (options/etcdClient.ts); builtin when unset. */
  etcdClientTransport?: ChannelTransport;
  etcdPrefix: string;
  storageMediaType: string;
  bindAddress: string;
  securePort: number;
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  clientCaFile?: string;
  serviceClusterIpRange: string;
  serviceNodePortRange: string;
  /** resource(.group) → capacity of its watch cache's event window (--watch-cache-sizes). */
  watchCacheSizes: Map<string, number>;
  defaultWatchCacheSize: number;
  traceBufferSize?: number;
  resources: ResourceDef[];
  /** Objects made at start when missing (namespaces, the kubernetes Service); given the allocators' first IP. */
  bootstrapObjects?: (serviceCIDR: string) => KObject[];
  openapi?: (resources: ResourceDef[]) => OpenApiSource;
  /** --request-timeout, --max-requests-inflight, --max-mutating-requests-inflight (kube's defaults when absent). */
  limits?: RequestLimits;
  /** Authentication beyond x509, authorization, admission, audit, computed resources, encryption. */
  plugins?: ServerPlugins;
  log?: (line: string) => void;
}
