// kube-apiserver's flags about the served resources themselves
// (cmd/kube-apiserver/app/options): the ranges Services allocate from, how
// long Events live, and the objects made at start.

import type { ResourceDef } from '../registry/rest/resourceDef';
import { bootstrapObjects } from '../registry/bootstrap';
import type { ApiServerOptionGroup } from './optionGroup';
import { goDurationMs } from './goDurationFlag';

/** --event-ttl: events are written with an etcd lease of this many seconds (kube's default 1h). */
export function withEventTtl(defs: ResourceDef[], seconds: number): ResourceDef[] {
  return defs.map((d) => (d.group === '' && d.resource === 'events' ? { ...d, ttlSeconds: () => seconds } : d));
}

export const apiResourceOptions: ApiServerOptionGroup = {
  name: 'api resources',
  register(cmd) {
    cmd
      .option('--service-cluster-ip-range <cidr>', 'range of Service cluster IPs', '10.96.0.0/12')
      .option('--service-node-port-range <range>', 'range of NodePorts', '30000-32767')
      .option('--event-ttl <duration>', 'how long events are kept', '1h');
  },
  apply(flags, cfg) {
    cfg.serviceClusterIpRange = String(flags.serviceClusterIpRange ?? '10.96.0.0/12');
    cfg.serviceNodePortRange = String(flags.serviceNodePortRange ?? '30000-32767');
    cfg.resources = withEventTtl(cfg.resources, goDurationMs(String(flags.eventTtl ?? '1h')) / 1000);
    // The kubernetes Service in default points at this server's port (--secure-port).
    cfg.bootstrapObjects = (cidr) => bootstrapObjects(cidr, cfg.securePort);
  },
};
