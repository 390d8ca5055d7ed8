// core/v1 events: kept for --event-ttl (1 h) through an etcd lease, PUT may
// create, the involved object's namespace must be the event's; kube's
// selectable fields (involvedObject.*, reason, source, type, ...); `ev`.

import type { KObject } from '../../../kube/object';
import { type ErrorList, invalid } from '../../api/validation/field';
import { nameIsDNSSubdomain } from '../../api/validation/names';
import { type Rec, isRec, str } from '../common/obj';
import { ALL_VERBS, metaFields, simpleStrategy } from '../common/define';
import type { ResourceDef } from '../rest/resourceDef';
import { eventTable } from '../tables/core';

export const DEFAULT_EVENT_TTL_SECONDS = 3600;

const involved = (obj: KObject): Rec => (isRec(obj.involvedObject) ? (obj.involvedObject as Rec) : {});

function validateEvent(obj: KObject): ErrorList {
  const ns = str(involved(obj), 'namespace');
  if (ns && obj.metadata.namespace && ns !== obj.metadata.namespace) return [invalid('involvedObject.namespace', ns, 'does not match event.namespace')];
  return [];
}

export function eventFields(obj: KObject): Record<string, string> {
  const io = involved(obj);
  const src = isRec(obj.source) ? (obj.source as Rec) : {};
  const reportingController = typeof obj.reportingComponent === 'string' ? obj.reportingComponent : '';
  return {
    ...metaFields(obj, true),
    'involvedObject.kind': str(io, 'kind'),
    'involvedObject.namespace': str(io, 'namespace'),
    'involvedObject.name': str(io, 'name'),
    'involvedObject.uid': str(io, 'uid'),
    'involvedObject.apiVersion': str(io, 'apiVersion'),
    'involvedObject.resourceVersion': str(io, 'resourceVersion'),
    'involvedObject.fieldPath': str(io, 'fieldPath'),
    reason: typeof obj.reason === 'string' ? obj.reason : '',
    reportingComponent: reportingController,
    source: str(src, 'component') || reportingController,
    type: typeof obj.type === 'string' ? obj.type : '',
  };
}

export const events: ResourceDef = {
  group: '',
  version: 'v1',
  kind: 'Event',
  listKind: 'EventList',
  resource: 'events',
  singular: 'event',
  namespaced: true,
  shortNames: ['ev'],
  categories: [],
  verbs: ALL_VERBS,
  storagePrefix: 'events',
  protoType: 'k8s.io.api.core.v1.Event',
  subresources: [],
  strategy: simpleStrategy({ namespaced: true, nameFn: nameIsDNSSubdomain, validate: validateEvent, allowCreateOnUpdate: true }),
  table: eventTable,
  selectableFields: eventFields,
  ttlSeconds: () => DEFAULT_EVENT_TTL_SECONDS,
};
