// The root CA publisher (kube's pkg/controller/certificates/rootcacertpublisher):
// every active namespace has a ConfigMap `kube-root-ca.crt` whose `ca.crt`
// is the cluster CA — the one pods find in their projected service-account
// volume (the ServiceAccount admission plugin mounts it) to trust the API
// server. A deleted or edited one is put back.

import { RESOURCES, collectionPath, isAlreadyExists, isNotFound, objectPath, type ControllerContext } from '../../../client/kube';
import { runQueue } from '../common';
import type { KObject } from '../types';

export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
/** kube marks the ConfigMap with this annotation (the description of what it is for). */
export const DESCRIPTION_ANNOTATION = 'kubernetes.io/description';
export const DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

interface ConfigMap extends KObject {
  data?: Record<string, string>;
}

/** The cluster CA in PEM, from the controller's own kubeconfig (what kube-controller-manager's --root-ca-file holds). */
export function clusterCaPem(ctx: ControllerContext): string | undefined {
  const cluster = ctx.clients.kubeConfig.getCurrentCluster();
  if (cluster?.caData) return Buffer.from(cluster.caData, 'base64').toString('utf8');
  return undefined;
}

export function startRootCaPublisher(ctx: ControllerContext): void {
  const ca = clusterCaPem(ctx);
  if (!ca) {
    ctx.log('root-ca-cert-publisher: the kubeconfig carries no CA data; not publishing kube-root-ca.crt');
    return;
  }
  const rest = ctx.clients.rest;
  const nsInf = ctx.informers.informer<KObject & { status?: { phase?: string } }>(RESOURCES.namespaces);
  const cmInf = ctx.informers.informer<ConfigMap>(RESOURCES.configmaps, { fieldSelector: `metadata.name=${ROOT_CA_CONFIGMAP}` });
  const queue = runQueue(ctx, 'root-ca-cert-publisher', sync, 2);
  nsInf.addEventHandler({ add: (ns) => queue.add(ns.metadata.name!), update: (_o, ns) => queue.add(ns.metadata.name!) });
  cmInf.addEventHandler({ update: (_o, cm) => queue.add(cm.metadata.namespace!), delete: (cm) => queue.add(cm.metadata.namespace!) });

  async function sync(namespace: string): Promise<void> {
    const ns = nsInf.get(namespace);
    if (!ns || ns.metadata.deletionTimestamp || ns.status?.phase === 'Terminating') return;
    const current = cmInf.getByName(namespace, ROOT_CA_CONFIGMAP);
    const want = { [DESCRIPTION_ANNOTATION]: DESCRIPTION };
    try {
      if (!current) {
        await rest.create(collectionPath(RESOURCES.configmaps, namespace), {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: ROOT_CA_CONFIGMAP, annotations: want },
          data: { 'ca.crt': ca! },
        });
        return;
      }
      if (current.data?.['ca.crt'] === ca && current.metadata.annotations?.[DESCRIPTION_ANNOTATION] === DESCRIPTION && Object.keys(current.data ?? {}).length === 1) return;
      await rest.replace(objectPath(RESOURCES.configmaps, namespace, ROOT_CA_CONFIGMAP), {
        ...current,
        metadata: { ...current.metadata, annotations: { ...current.metadata.annotations, ...want } },
        data: { 'ca.crt': ca! },
      });
    } catch (e) {
      // Made meanwhile (the cache lags), or the namespace went away / is terminating.
      if (isAlreadyExists(e) || isNotFound(e) || (e as { status?: number }).status === 403) return;
      throw e;
    }
  }
}
