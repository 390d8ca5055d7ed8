// Column definitions shared by every printer, with the descriptions kube
// takes from the API's swagger docs.

import type { TableColumn } from '../rest/resourceDef';

export const nameDescription =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';

export const creationTimestampDescription =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

export const nameColumn: TableColumn = { name: 'Name', type: 'string', format: 'name', description: nameDescription, priority: 0 };
export const ageColumn: TableColumn = { name: 'Age', type: 'string', format: '', description: creationTimestampDescription, priority: 0 };

export function col(name: string, type: TableColumn['type'], description: string, priority = 0): TableColumn {
  return { name, type, format: '', description, priority };
}
