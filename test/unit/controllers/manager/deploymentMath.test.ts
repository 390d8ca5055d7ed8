import { describe, expect, it } from 'vitest';
import { canonicalJson, computeHash, fnv32a, safeEncodeString } from '../../../../main/controllers/manager/deployment/podTemplateHash';
import { maxSurge, maxUnavailable, newRSNewReplicas, resolveFenceposts, scaledValue } from '../../../../main/controllers/manager/deployment/replicas';
import { planOldScaleDown, planScale } from '../../../../main/controllers/manager/deployment/rolling';
import type { Deployment, IntOrString, ReplicaSet } from '../../../../main/controllers/manager/types';

function deploy(replicas: number, surge?: IntOrString, unavailable?: IntOrString, type: 'RollingUpdate' | 'Recreate' = 'RollingUpdate'): Deployment {
  return {
    metadata: { name: 'web', namespace: 'default', generation: 1 },
    spec: { replicas, selector: {}, template: {}, strategy: { type, rollingUpdate: type === 'RollingUpdate' ? { maxSurge: surge, maxUnavailable: unavailable } : undefined } },
  };
}
function rs(name: string, replicas: number, available = replicas, created = '2026-01-01T00:00:00Z', annotations?: Record<string, string>): ReplicaSet {
  return { metadata: { name, creationTimestamp: created, annotations }, spec: { replicas, selector: {} }, status: { replicas, availableReplicas: available } };
}

describe('pod-template-hash', () => {
  it('FNV-32a matches the published test vectors', () => {
    const cases = [
      { input: '', want: 0x811c9dc5 },
      { input: 'a', want: 0xe40c292c },
      { input: 'foobar', want: 0xbf9cf968 },
    ];
    for (const c of cases) expect(fnv32a(Buffer.from(c.input)), c.input).toBe(c.want);
  });
  it('SafeEncodeString maps digits into the vowel-free alphabet', () => {
    // '0'..'9' are bytes 48..57: 48 % 27 = 21 → '4' … 54 % 27 = 0 → 'b'. Real kube hashes
    // (e.g. "7854ff8877") use exactly these ten letters.
    expect(safeEncodeString('0123456789')).toBe('456789bcdf');
  });
  it('is stable under key order and changes with the template and the collision count', () => {
    const a = { metadata: { labels: { app: 'web', tier: 'fe' } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } };
    const b = { spec: { containers: [{ image: 'nginx', name: 'nginx' }] }, metadata: { labels: { tier: 'fe', app: 'web' } } };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(computeHash(a)).toBe(computeHash(b));
    expect(computeHash(a)).not.toBe(computeHash({ ...a, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } }));
    expect(computeHash(a, 1)).not.toBe(computeHash(a));
    expect(computeHash(a)).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
  });
});

describe('fenceposts', () => {
  const cases: { name: string; surge?: IntOrString; unavailable?: IntOrString; desired: number; want: { surge: number; unavailable: number } }[] = [
    { name: 'kube defaults 25%/25% of 4', surge: '25%', unavailable: '25%', desired: 4, want: { surge: 1, unavailable: 1 } },
    { name: 'surge rounds up, unavailable down', surge: '25%', unavailable: '25%', desired: 3, want: { surge: 1, unavailable: 0 } },
    { name: 'both zero → unavailable 1', surge: 0, unavailable: 0, desired: 3, want: { surge: 0, unavailable: 1 } },
    { name: 'ints as given', surge: 2, unavailable: 1, desired: 10, want: { surge: 2, unavailable: 1 } },
    { name: '50% of 5', surge: '50%', unavailable: '50%', desired: 5, want: { surge: 3, unavailable: 2 } },
  ];
  for (const c of cases) it(c.name, () => expect(resolveFenceposts(c.surge, c.unavailable, c.desired)).toEqual(c.want));

  it('maxUnavailable is capped at replicas and 0 for Recreate or no replicas', () => {
    expect(maxUnavailable(deploy(2, 0, 5))).toBe(2);
    expect(maxUnavailable(deploy(3, 1, 1, 'Recreate'))).toBe(0);
    expect(maxUnavailable(deploy(0, 1, 1))).toBe(0);
    expect(maxSurge(deploy(3, 1, 1, 'Recreate'))).toBe(0);
  });
  it('rejects a malformed percentage', () => {
    expect(() => scaledValue('abc', 4, true)).toThrow(/invalid value/);
  });
});

describe('newRSNewReplicas', () => {
  const cases = [
    { name: 'fresh deployment: up to replicas', d: deploy(3, '25%', '25%'), all: [], cur: 0, want: 3 },
    { name: 'rollout: surge bounds the total', d: deploy(3, 1, 0), all: [rs('old', 3)], cur: 0, want: 1 },
    { name: 'at the surge limit: no growth', d: deploy(3, 1, 0), all: [rs('old', 3), rs('new', 1)], cur: 1, want: 1 },
    { name: 'old shrank: grows again', d: deploy(3, 1, 0), all: [rs('old', 2), rs('new', 1)], cur: 1, want: 2 },
    { name: 'Recreate: all at once', d: deploy(3, undefined, undefined, 'Recreate'), all: [rs('old', 3)], cur: 0, want: 3 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const n = rs('new', c.cur);
      expect(newRSNewReplicas(c.d, [...c.all.filter((x) => x.metadata.name !== 'new'), n], n)).toBe(c.want);
    });
  }
});

describe('old ReplicaSets scale down (reconcileOldReplicaSets)', () => {
  const cases = [
    { name: 'new not yet available: only surge headroom', d: deploy(3, 1, 0), olds: [rs('old', 3)], newRS: rs('new', 1, 0), want: [] as number[] },
    { name: 'new pod available: one old goes', d: deploy(3, 1, 0), olds: [rs('old', 3)], newRS: rs('new', 1, 1), want: [2] },
    { name: 'maxUnavailable 1 without surge', d: deploy(3, 0, 1), olds: [rs('old', 3)], newRS: rs('new', 0, 0), want: [2] },
    { name: 'unhealthy old pods go first, then healthy', d: deploy(4, 0, 2), olds: [rs('old', 4, 2)], newRS: rs('new', 0, 0), want: [2] },
    {
      name: 'oldest first across several',
      d: deploy(4, 0, 2),
      olds: [rs('b', 2, 2, '2026-01-02T00:00:00Z'), rs('a', 2, 2, '2026-01-01T00:00:00Z')],
      newRS: rs('new', 0, 0),
      want: [0],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const steps = planOldScaleDown(c.d, c.olds, c.newRS);
      const last = new Map<string, number>();
      for (const s of steps) last.set(s.rs.metadata.name!, s.replicas);
      expect([...last.values()]).toEqual(c.want);
    });
  }
  it('the oldest one shrinks when two old ReplicaSets share the budget', () => {
    const steps = planOldScaleDown(deploy(4, 0, 2), [rs('b', 2, 2, '2026-01-02T00:00:00Z'), rs('a', 2, 2, '2026-01-01T00:00:00Z')], rs('new', 0, 0));
    expect(steps.map((s) => [s.rs.metadata.name, s.replicas])).toEqual([['a', 0]]);
  });
});

describe('scaling a deployment (scale)', () => {
  it('one active ReplicaSet takes the whole change', () => {
    const { steps, operation } = planScale(deploy(5, '25%', '25%'), rs('new', 3), [rs('old', 0)]);
    expect(steps.map((s) => [s.rs.metadata.name, s.replicas])).toEqual([['new', 5]]);
    expect(operation).toBe('up');
  });
  it('proportional: 10 → 15 mid-rollout splits by size, leftover to the largest', () => {
    // kube's TestScale "proportional scaling: 5 -> 10" shape: annotations record max-replicas before the change.
    const d = deploy(15, 3, 2);
    d.status = { replicas: 13 };
    const ann = { 'deployment.kubernetes.io/desired-replicas': '10', 'deployment.kubernetes.io/max-replicas': '13' };
    const newer = rs('new', 5, 5, '2026-01-02T00:00:00Z', ann);
    const older = rs('old', 8, 8, '2026-01-01T00:00:00Z', ann);
    const { steps, operation } = planScale(d, newer, [older]);
    expect(operation).toBe('up');
    const total = steps.reduce((n, s) => n + s.replicas, 0);
    expect(total).toBe(18); // 15 + surge 3
    expect(Object.fromEntries(steps.map((s) => [s.rs.metadata.name, s.replicas]))).toEqual({ old: 11, new: 7 });
  });
  it('a saturated new ReplicaSet takes the old ones to zero', () => {
    const ann = { 'deployment.kubernetes.io/desired-replicas': '3' };
    const { steps } = planScale(deploy(3, 1, 0), rs('new', 3, 3, '2026-01-02T00:00:00Z', ann), [rs('old', 1)]);
    expect(steps.map((s) => [s.rs.metadata.name, s.replicas])).toEqual([['old', 0]]);
  });
});
