// The storage conformance table (test/support/storage/storageConformance.ts)
// against MemStorage, the in-memory Storage of the registry unit tests. The
// store is its own "other writer": there is one copy of the data.
//
// MemStorage lists without paging, predicates or past revisions and has no
// watches; the cases that need those are expected to fail here (it.fails),
// so the day the store learns one, its case says so.

import { describe, it } from 'vitest';
import { cases } from '../../../support/storage/storageConformance';
import { MemStorage } from '../registry/memStorage';

const NOT_IN_MEMORY = new Map<string, string>([
  ['list pages with limit/continue at one revision; remainingItemCount without selectors', 'no paging'],
  ['list with a predicate fills pages past filtered-out objects and gives no remainingItemCount', 'no predicates or paging'],
  ['list rejects bad continue tokens and RV with continue as kube does', 'no continue tokens'],
  ['list Exact reads the past; NotOlderThan beyond now is TooLarge; the list RV is the current revision', 'keeps no history'],
  ['watch RV "" and "0": current state as ADDED, then changes; RV N: only changes after N', 'no watches'],
  ['a watch with a predicate sees objects enter as ADDED and leave as DELETED', 'no watches'],
  ['sendInitialEvents: initial ADDED events, then a BOOKMARK annotated k8s.io/initial-events-end, then changes', 'no watches'],
]);

describe('in-memory storage', () => {
  let n = 0;
  for (const c of cases.filter((c) => c.only === undefined)) {
    const gap = NOT_IN_MEMORY.get(c.name);
    (gap ? it.fails : it)(gap ? `${c.name} (not in memory: ${gap})` : c.name, async () => {
      const storage = new MemStorage();
      await c.run({ kind: 'memory', storage, other: storage, prefix: `/registry/mem-${++n}/` });
    });
  }

  it('names only cases of the table among its gaps', () => {
    const names = new Set(cases.map((c) => c.name));
    for (const name of NOT_IN_MEMORY.keys()) if (!names.has(name)) throw new Error(`no such case: ${name}`);
  });
});
