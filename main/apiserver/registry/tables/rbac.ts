// Columns of kube's RBAC printers (printRoleBinding, printClusterRoleBinding)
// and of the default table convertor (rest.NewDefaultTableConvertor) that
// types without a printer get: roles, clusterroles and limitranges print
// NAME and CREATED AT, the creation time as an RFC 3339 string.

import type { KObject } from '../../../kube/object';
import type { TableColumn, TableConvertor } from '../rest/resourceDef';
import { type Rec, arr, isRec, str } from '../common/obj';
import { ageColumn, col, creationTimestampDescription, nameColumn } from './columns';
import { translateTimestampSince } from './duration';

const createdAtColumn: TableColumn = { name: 'Created At', type: 'date', format: '', description: creationTimestampDescription, priority: 0 };

/** metav1.Time's zero value formatted with time.RFC3339, for objects without a creation time. */
const ZERO_TIME = '0001-01-01T00:00:00Z';

export const defaultTable: TableConvertor = {
  columns: [nameColumn, createdAtColumn],
  cells: (obj) => [obj.metadata.name ?? '', obj.metadata.creationTimestamp || ZERO_TIME],
};

/** rbac.SubjectsStrings: users, groups and "namespace/name" service accounts. */
export function subjectsStrings(subjects: Rec[]): { users: string[]; groups: string[]; serviceAccounts: string[] } {
  const out = { users: [] as string[], groups: [] as string[], serviceAccounts: [] as string[] };
  for (const s of subjects) {
    if (s.kind === 'ServiceAccount') out.serviceAccounts.push(`${str(s, 'namespace')}/${str(s, 'name')}`);
    else if (s.kind === 'User') out.users.push(str(s, 'name'));
    else if (s.kind === 'Group') out.groups.push(str(s, 'name'));
  }
  return out;
}

function bindingTable(roleRefDescription: string, what: string): TableConvertor {
  return {
    columns: [
      nameColumn,
      col('Role', 'string', roleRefDescription),
      ageColumn,
      col('Users', 'string', `Users in the ${what}`, 1),
      col('Groups', 'string', `Groups in the ${what}`, 1),
      col('ServiceAccounts', 'string', `ServiceAccounts in the ${what}`, 1),
    ],
    cells(obj: KObject, now: Date) {
      const ref = isRec((obj as Rec).roleRef) ? ((obj as Rec).roleRef as Rec) : {};
      const s = subjectsStrings(arr(obj as Rec, 'subjects'));
      return [
        obj.metadata.name ?? '',
        `${str(ref, 'kind')}/${str(ref, 'name')}`,
        translateTimestampSince(obj.metadata.creationTimestamp, now),
        s.users.join(', '),
        s.groups.join(', '),
        s.serviceAccounts.join(', '),
      ];
    },
  };
}

// kube takes these descriptions from the rbac/v1beta1 swagger docs.
export const roleBindingTable = bindingTable(
  'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.',
  'roleBinding',
);

export const clusterRoleBindingTable = bindingTable(
  'RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.',
  'clusterRoleBinding',
);
