// The objects kube-apiserver makes for itself at start (its bootstrap
// controllers): the four system namespaces and the `default/kubernetes`
// Service holding the first address of the service range. The server creates
// each one that is missing, through the normal create path.

import type { KObject } from '../../kube/object';
import { DEFAULT_SERVICE_CIDR, firstServiceIP } from './allocator/serviceAllocators';

export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

function namespace(name: string): KObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
}

/** The `kubernetes` Service as the master's controller writes it (port 443 → the API server's secure port). */
export function kubernetesService(serviceCIDR: string = DEFAULT_SERVICE_CIDR, securePort = 6443): KObject {
  const ip = firstServiceIP(serviceCIDR);
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'kubernetes', namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } },
    spec: {
      type: 'ClusterIP',
      clusterIP: ip,
      clusterIPs: [ip],
      sessionAffinity: 'None',
      ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: securePort }],
    },
  };
}

/** In creation order: namespaces first, the Service last. */
export function bootstrapObjects(serviceCIDR: string = DEFAULT_SERVICE_CIDR, securePort = 6443): KObject[] {
  return [...SYSTEM_NAMESPACES.map(namespace), kubernetesService(serviceCIDR, securePort)];
}
