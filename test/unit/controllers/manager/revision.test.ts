import { describe, expect, it } from 'vitest';
import { equalIgnoreHash, findNewReplicaSet, maxRevision, setNewReplicaSetAnnotations } from '../../../../main/controllers/manager/deployment/revision';
import type { Deployment, ReplicaSet } from '../../../../main/controllers/manager/types';

const deploy = (annotations: Record<string, string> = {}): Deployment => ({
  metadata: { name: 'web', annotations },
  spec: { replicas: 4, selector: {}, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } }, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } } },
});
const rs = (name: string, revision: string | undefined, image: string, created: string): ReplicaSet => ({
  metadata: { name, creationTimestamp: created, annotations: revision ? { 'deployment.kubernetes.io/revision': revision } : {} },
  spec: { replicas: 0, selector: {}, template: { metadata: { labels: { app: 'web', 'pod-template-hash': name } }, spec: { containers: [{ name: 'c', image }] } } },
});

describe('revisions', () => {
  const cases = [
    {
      name: 'a new ReplicaSet: revision, replicas annotations, the deployment’s own annotations but not kubectl’s',
      d: deploy({ team: 'a', 'kubectl.kubernetes.io/last-applied-configuration': '{}', 'deployment.kubernetes.io/revision': '7' }),
      rs: rs('x', undefined, 'nginx:1.27', 't'),
      rev: 3,
      exists: false,
      want: { team: 'a', 'deployment.kubernetes.io/revision': '3', 'deployment.kubernetes.io/desired-replicas': '4', 'deployment.kubernetes.io/max-replicas': '5' },
    },
    {
      name: 'an old ReplicaSet brought back (rollout undo): new revision, old one in revision-history',
      d: deploy(),
      rs: { ...rs('x', '1', 'nginx:1.27', 't'), metadata: { name: 'x', annotations: { 'deployment.kubernetes.io/revision': '2', 'deployment.kubernetes.io/revision-history': '1' } } },
      rev: 4,
      exists: true,
      want: { 'deployment.kubernetes.io/revision': '4', 'deployment.kubernetes.io/revision-history': '1,2' },
    },
    { name: 'already at that revision: unchanged', d: deploy(), rs: rs('x', '4', 'nginx:1.27', 't'), rev: 4, exists: true, want: { 'deployment.kubernetes.io/revision': '4' } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const changed = setNewReplicaSetAnnotations(c.d, c.rs, c.rev, c.exists);
      expect(c.rs.metadata.annotations).toEqual(c.want);
      expect(changed).toBe(c.name.startsWith('already') ? false : true);
    });
  }
  it('the new ReplicaSet is the oldest whose template equals the deployment’s, ignoring pod-template-hash', () => {
    const list = [rs('b', '2', 'nginx:1.26', '2026-01-02T00:00:00Z'), rs('a', '1', 'nginx:1.27', '2026-01-01T00:00:00Z'), rs('c', '3', 'nginx:1.27', '2026-01-03T00:00:00Z')];
    expect(findNewReplicaSet(deploy(), list)?.metadata.name).toBe('a');
    expect(maxRevision(list)).toBe(3);
    expect(equalIgnoreHash({ metadata: { labels: { 'pod-template-hash': 'x' } }, spec: {} }, { spec: {} })).toBe(true);
    expect(equalIgnoreHash({ metadata: { labels: { app: 'a' } } }, { metadata: { labels: { app: 'b' } } })).toBe(false);
  });
});
