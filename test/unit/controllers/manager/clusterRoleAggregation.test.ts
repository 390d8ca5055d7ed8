import { describe, expect, it } from 'vitest';
import { aggregatedRules, type ClusterRole } from '../../../../main/controllers/manager/clusterRoleAggregation';

const role = (name: string, labels: Record<string, string>, rules: unknown[], agg?: Record<string, string>[]): ClusterRole => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: { name, labels },
  rules,
  ...(agg ? { aggregationRule: { clusterRoleSelectors: agg.map((m) => ({ matchLabels: m })) } } : {}),
});

const get = (r: string) => ({ verbs: ['get'], apiGroups: [''], resources: [r] });

describe('clusterrole aggregation', () => {
  const edit = role('edit', { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' }, [], [{ 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' }]);
  const cases: { name: string; target: ClusterRole; all: ClusterRole[]; want: unknown[] }[] = [
    {
      name: 'union of matching roles in name order, duplicates once',
      target: edit,
      all: [
        edit,
        role('z-extra', { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' }, [get('widgets'), get('pods')]),
        role('system:aggregate-to-edit', { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' }, [get('pods')]),
        role('unrelated', {}, [get('secrets')]),
      ],
      want: [get('pods'), get('widgets')],
    },
    { name: 'nothing matches: no rules', target: edit, all: [edit, role('x', {}, [get('a')])], want: [] },
    {
      name: 'two selectors, in selector order',
      target: role('both', {}, [], [{ a: 'true' }, { b: 'true' }]),
      all: [role('r-b', { b: 'true' }, [get('b')]), role('r-a', { a: 'true' }, [get('a')])],
      want: [get('a'), get('b')],
    },
  ];
  for (const c of cases) it(c.name, () => expect(aggregatedRules(c.target, c.all)).toEqual(c.want));
});
