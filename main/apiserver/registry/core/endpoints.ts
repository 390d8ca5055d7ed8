// core/v1 endpoints (stored under services/endpoints): written by the
// endpoints controller with PUT-creates (allowCreateOnUpdate); addresses must
// be IPs, ports valid; `ep`.

import type { KObject } from '../../../kube/object';
import { type ErrorList, invalid, notSupported, required } from '../../api/validation/field';
import { isDNS1123Label, isValidPortNum, nameIsDNSSubdomain } from '../../api/validation/names';
import { parseIPv4 } from '../allocator/ranges';
import { type Rec, arr, isRec, num, setDefault, str } from '../common/obj';
import { ALL_VERBS, metaFields, simpleStrategy } from '../common/define';
import type { ResourceDef } from '../rest/resourceDef';
import { endpointsTable } from '../tables/core';

const subsets = (obj: KObject): Rec[] => (Array.isArray(obj.subsets) ? (obj.subsets as unknown[]).filter(isRec) : []);

export function defaultEndpoints(obj: KObject): void {
  for (const ss of subsets(obj)) for (const p of arr(ss, 'ports')) setDefault(p, 'protocol', 'TCP');
}

function validateEndpoints(obj: KObject): ErrorList {
  const errs: ErrorList = [];
  subsets(obj).forEach((ss, i) => {
    const sp = `subsets[${i}]`;
    for (const kind of ['addresses', 'notReadyAddresses']) {
      arr(ss, kind).forEach((a, j) => {
        const ip = str(a, 'ip');
        if (parseIPv4(ip) === undefined && !ip.includes(':')) errs.push(invalid(`${sp}.${kind}[${j}].ip`, ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
      });
    }
    const ports = arr(ss, 'ports');
    ports.forEach((p, j) => {
      const pp = `${sp}.ports[${j}]`;
      const name = str(p, 'name');
      if (ports.length > 1 && !name) errs.push(required(`${pp}.name`));
      else if (name) for (const m of isDNS1123Label(name)) errs.push(invalid(`${pp}.name`, name, m));
      for (const m of isValidPortNum(num(p, 'port') ?? 0)) errs.push(invalid(`${pp}.port`, num(p, 'port') ?? 0, m));
      const proto = str(p, 'protocol');
      if (!['SCTP', 'TCP', 'UDP'].includes(proto)) errs.push(proto ? notSupported(`${pp}.protocol`, proto, ['SCTP', 'TCP', 'UDP']) : required(`${pp}.protocol`));
    });
  });
  return errs;
}

export const endpoints: ResourceDef = {
  group: '',
  version: 'v1',
  kind: 'Endpoints',
  listKind: 'EndpointsList',
  resource: 'endpoints',
  singular: 'endpoints',
  namespaced: true,
  shortNames: ['ep'],
  categories: [],
  verbs: ALL_VERBS,
  storagePrefix: 'services/endpoints',
  protoType: 'k8s.io.api.core.v1.Endpoints',
  subresources: [],
  strategy: simpleStrategy({ namespaced: true, nameFn: nameIsDNSSubdomain, defaults: defaultEndpoints, validate: validateEndpoints, allowCreateOnUpdate: true }),
  table: endpointsTable,
  selectableFields: (obj) => metaFields(obj, true),
};
