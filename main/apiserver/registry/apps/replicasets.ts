// apps/v1 replicasets: kube's rsStrategy — 1 replica by default, status
// starts as {replicas: 0}, generation bumps on spec change, immutable
// selector, /status and /scale; `status.replicas` is a selectable field.

import type { KObject } from '../../../kube/object';
import { nameIsDNSSubdomain } from '../../api/validation/names';
import { type Rec, isRec, num, rec } from '../common/obj';
import { ALL_VERBS, STATUS_VERBS, metaFields, simpleStrategy, statusStrategy } from '../common/define';
import { defaultPodTemplate } from '../core/podDefaults';
import type { ResourceDef } from '../rest/resourceDef';
import { replicaSetTable } from '../tables/workloads';
import { selectorImmutable, validateCounters, validateWorkloadSpec, workloadScale } from './workload';

export function defaultReplicaSet(obj: KObject): void {
  const spec = rec(obj as Rec, 'spec');
  if (spec.replicas === undefined || spec.replicas === null) spec.replicas = 1;
  defaultPodTemplate(rec(spec, 'template'));
}

const rsStrategy = simpleStrategy({
  namespaced: true,
  nameFn: nameIsDNSSubdomain,
  generation: true,
  hasStatus: true,
  defaults: defaultReplicaSet,
  prepareForCreate(obj) {
    obj.status = { replicas: 0 };
  },
  validate: (obj) => validateWorkloadSpec((isRec(obj.spec) ? obj.spec : {}) as Rec, 'replicaset'),
  validateUpdate: selectorImmutable,
});

export const replicasets: ResourceDef = {
  group: 'apps',
  version: 'v1',
  kind: 'ReplicaSet',
  listKind: 'ReplicaSetList',
  resource: 'replicasets',
  singular: 'replicaset',
  namespaced: true,
  shortNames: ['rs'],
  categories: ['all'],
  verbs: ALL_VERBS,
  storagePrefix: 'replicasets',
  protoType: 'k8s.io.api.apps.v1.ReplicaSet',
  subresources: [
    { name: 'scale', kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: STATUS_VERBS },
    { name: 'status', kind: { group: 'apps', version: 'v1', kind: 'ReplicaSet' }, verbs: STATUS_VERBS },
  ],
  strategy: rsStrategy,
  statusStrategy: statusStrategy(rsStrategy, {
    keepMeta: ['labels'],
    validateStatus: (obj) =>
      validateCounters(isRec(obj.status) ? obj.status : undefined, ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration']),
  }),
  scale: workloadScale,
  table: replicaSetTable,
  selectableFields: (obj) => ({ ...metaFields(obj, true), 'status.replicas': String((isRec(obj.status) ? num(obj.status, 'replicas') : 0) ?? 0) }),
};
