// coordination.k8s.io/v1 leases (node heartbeats, leader election):
// positive leaseDurationSeconds, non-negative leaseTransitions.

import type { KObject } from '../../../kube/object';
import { type ErrorList, invalid, nonNegative } from '../../api/validation/field';
import { nameIsDNSSubdomain } from '../../api/validation/names';
import { type Rec, isRec, num } from '../common/obj';
import { ALL_VERBS, metaFields, simpleStrategy } from '../common/define';
import type { ResourceDef } from '../rest/resourceDef';
import { leaseTable } from '../tables/core';

function validateLease(obj: KObject): ErrorList {
  const spec = (isRec(obj.spec) ? obj.spec : {}) as Rec;
  const errs: ErrorList = [];
  const d = num(spec, 'leaseDurationSeconds');
  if (d !== undefined && d <= 0) errs.push(invalid('spec.leaseDurationSeconds', d, 'must be greater than 0'));
  const t = num(spec, 'leaseTransitions');
  if (t !== undefined) errs.push(...nonNegative(t, 'spec.leaseTransitions'));
  return errs;
}

export const leases: ResourceDef = {
  group: 'coordination.k8s.io',
  version: 'v1',
  kind: 'Lease',
  listKind: 'LeaseList',
  resource: 'leases',
  singular: 'lease',
  namespaced: true,
  shortNames: [],
  categories: [],
  verbs: ALL_VERBS,
  storagePrefix: 'leases',
  protoType: 'k8s.io.api.coordination.v1.Lease',
  subresources: [],
  // PUT may create a lease (kube's leaseStrategy.AllowCreateOnUpdate), as node heartbeats and leader election rely on.
  strategy: simpleStrategy({ namespaced: true, nameFn: nameIsDNSSubdomain, validate: validateLease, allowCreateOnUpdate: true }),
  table: leaseTable,
  selectableFields: (obj) => metaFields(obj, true),
};
