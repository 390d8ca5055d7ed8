// admission.NewForbidden: the 403 an admission plugin answers with,
// `<resource> "<name>" is forbidden: <why>`. The name is the object's name,
// else its generateName (names are generated after admission), else
// "Unknown" — kube takes it from the object, so a DELETE (no object) says
// "Unknown" too.

import { forbidden, type StatusError } from '../../api/status';
import type { AdmissionAttributes } from '../interfaces';

export function admissionForbidden(a: AdmissionAttributes, why: string): StatusError {
  const meta = a.object?.metadata;
  const name = meta?.name || meta?.generateName || 'Unknown';
  return forbidden({ group: a.group, resource: a.resource }, name, why);
}
