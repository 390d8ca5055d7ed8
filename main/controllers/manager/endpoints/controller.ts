// The endpoints controller (kube's pkg/controller/endpoint): an Endpoints
// object per Service with a selector, named like the Service, listing the
// selected pods; removed with the Service. Services without a selector are
// left to whoever manages their Endpoints by hand.

import { RESOURCES, collectionPath, isAlreadyExists, isNotFound, objectKey, objectPath, splitKey, type ControllerContext } from '../../../client/kube';
import { runQueue, setMatches } from '../common';
import { jsonEqual } from '../deployment/revision';
import type { KObject, Pod } from '../types';
import { endpointSubsets, type EndpointSubset, type Service } from './subsets';

type Endpoints = KObject & { subsets?: EndpointSubset[] };

export function startEndpointsController(ctx: ControllerContext): void {
  const rest = ctx.clients.rest;
  const svcInf = ctx.informers.informer<Service & KObject>(RESOURCES.services);
  const podInf = ctx.informers.informer<Pod>(RESOURCES.pods);
  const epInf = ctx.informers.informer<Endpoints>(RESOURCES.endpoints);
  const queue = runQueue(ctx, 'endpoints', sync);

  const selected = (svc: Service, p: Pod): boolean => !!svc.spec?.selector && Object.keys(svc.spec.selector).length > 0 && setMatches(svc.spec.selector, p.metadata.labels);
  const enqueueFor = (p: Pod): void => {
    for (const svc of svcInf.byIndex('namespace', p.metadata.namespace ?? '')) if (selected(svc, p)) queue.add(objectKey(svc));
  };
  svcInf.addEventHandler({ add: (s) => queue.add(objectKey(s)), update: (_o, s) => queue.add(objectKey(s)), delete: (s) => queue.add(objectKey(s)) });
  podInf.addEventHandler({ add: enqueueFor, update: (o, n) => { enqueueFor(o); enqueueFor(n); }, delete: enqueueFor });
  epInf.addEventHandler({ delete: (e) => svcInf.get(objectKey(e)) && queue.add(objectKey(e)) });

  async function sync(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const svc = svcInf.get(key);
    if (!svc) {
      try {
        await rest.delete(objectPath(RESOURCES.endpoints, namespace, name));
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      return;
    }
    if (!svc.spec?.selector || Object.keys(svc.spec.selector).length === 0) return;
    const pods = podInf.byIndex('namespace', namespace ?? '').filter((p) => selected(svc, p));
    const subsets = endpointSubsets(svc, pods);
    const labels: Record<string, string> = { ...(svc.metadata.labels ?? {}) };
    if (svc.spec.clusterIP === 'None') labels['service.kubernetes.io/headless'] = '';
    const current = epInf.get(key);
    if (current && jsonEqual(current.subsets ?? [], subsets) && jsonEqual(current.metadata.labels ?? {}, labels)) return;
    const body: Endpoints = { apiVersion: 'v1', kind: 'Endpoints', metadata: { ...(current?.metadata ?? { name, namespace }), labels }, subsets };
    try {
      if (current) await rest.replace(objectPath(RESOURCES.endpoints, namespace, name), body);
      else await rest.create(collectionPath(RESOURCES.endpoints, namespace), body);
    } catch (e) {
      if (isAlreadyExists(e)) throw new Error(`endpoints ${key} exist but are not in the cache yet`);
      throw e;
    }
  }
}
