// core/v1 nodes (cluster-scoped, stored under `minions`): kubelets register
// with their status, so create keeps it; allocatable defaults to capacity;
// `spec.unschedulable` is selectable; `no`.

import type { KObject } from '../../../kube/object';
import { nameIsDNSSubdomain } from '../../api/validation/names';
import { type Rec, isRec, recOpt } from '../common/obj';
import { ALL_VERBS, STATUS_VERBS, metaFields, simpleStrategy, statusStrategy } from '../common/define';
import type { ResourceDef } from '../rest/resourceDef';
import { nodeTable } from '../tables/core';

export function defaultNode(obj: KObject): void {
  const status = isRec(obj.status) ? (obj.status as Rec) : undefined;
  const capacity = recOpt(status, 'capacity');
  if (status && capacity && status.allocatable === undefined) status.allocatable = { ...capacity };
}

const nodeStrategy = simpleStrategy({ namespaced: false, nameFn: nameIsDNSSubdomain, defaults: defaultNode });
// Nodes keep their status on create (kubelet registration) but not on main-resource updates.
const nodeMain = {
  ...nodeStrategy,
  prepareForUpdate: (obj: KObject, old: KObject, ctx: Parameters<typeof nodeStrategy.prepareForUpdate>[2]) => {
    const r = nodeStrategy.prepareForUpdate(obj, old, ctx);
    if (old.status === undefined) delete obj.status;
    else obj.status = JSON.parse(JSON.stringify(old.status));
    return r;
  },
};

export const nodes: ResourceDef = {
  group: '',
  version: 'v1',
  kind: 'Node',
  listKind: 'NodeList',
  resource: 'nodes',
  singular: 'node',
  namespaced: false,
  shortNames: ['no'],
  categories: [],
  verbs: ALL_VERBS,
  storagePrefix: 'minions',
  protoType: 'k8s.io.api.core.v1.Node',
  subresources: [{ name: 'status', kind: { group: '', version: 'v1', kind: 'Node' }, verbs: STATUS_VERBS }],
  strategy: nodeMain,
  statusStrategy: statusStrategy(nodeMain),
  table: nodeTable,
  selectableFields: (obj) => ({ ...metaFields(obj, false), 'spec.unschedulable': String(isRec(obj.spec) && (obj.spec as Rec).unschedulable === true) }),
};
