// The service cluster-IP and node-port allocators one API server builds at
// start and hands to strategies through StrategyContext.allocators.

import type { Storage } from '../../storage/interface';
import type { ServiceAllocators } from '../rest/resourceDef';
import { RangeAllocator } from './rangeAllocator';
import { ipRange, portRange } from './ranges';

export const DEFAULT_SERVICE_CIDR = '10.96.0.0/12';
export const DEFAULT_NODE_PORT_RANGE = '30000-32767';

export interface ServiceAllocatorOptions {
  /** Storage able to hold v1 RangeAllocation objects. */
  storage: Storage;
  /** --etcd-prefix, default '/registry'. */
  prefix?: string;
  /** --service-cluster-ip-range. */
  serviceCIDR?: string;
  /** --service-node-port-range. */
  nodePortRange?: string;
}

export interface BuiltServiceAllocators extends ServiceAllocators {
  clusterIPs: RangeAllocator<string>;
  nodePorts: RangeAllocator<number>;
}

export function createServiceAllocators(opts: ServiceAllocatorOptions): BuiltServiceAllocators {
  const prefix = (opts.prefix ?? '/registry').replace(/\/+$/, '');
  const ips = ipRange(opts.serviceCIDR ?? DEFAULT_SERVICE_CIDR);
  const ports = portRange(opts.nodePortRange ?? DEFAULT_NODE_PORT_RANGE);
  return {
    serviceCIDR: ips.spec,
    clusterIPs: new RangeAllocator(opts.storage, `${prefix}/ranges/serviceips`, ips, 'provided IP is already allocated'),
    nodePorts: new RangeAllocator(opts.storage, `${prefix}/ranges/servicenodeports`, ports, 'provided port is already allocated'),
  };
}

/** The first address of the range: the `default/kubernetes` Service's cluster IP. */
export function firstServiceIP(serviceCIDR: string = DEFAULT_SERVICE_CIDR): string {
  return ipRange(serviceCIDR).valueAt(0);
}
