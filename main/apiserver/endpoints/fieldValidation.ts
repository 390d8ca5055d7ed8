// Unknown and mistyped fields of a decoded body, as kube's strict decoder
// reports them ('unknown field "spec.foo"'). The schema knowledge is H1's
// (main/apiserver/schema); until that module is in the tree no field can be
// checked and the list is empty.

import type { KObject } from '../api/object';

export function unknownFieldErrors(_gvk: { group: string; version: string; kind: string }, _obj: KObject): string[] {
  return [];
}
