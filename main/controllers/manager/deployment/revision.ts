// Revisions and the annotations a deployment shares with its ReplicaSets
// (deployment_util.go): `deployment.kubernetes.io/revision` counts rollouts,
// the new ReplicaSet always gets max(old)+1, and a ReplicaSet brought back by
// `kubectl rollout undo` remembers its earlier numbers in revision-history.

import type { Deployment, ReplicaSet } from '../types';
import { byCreation } from '../types';
import { DESIRED_REPLICAS, MAX_REPLICAS, maxSurge, setReplicasAnnotations } from './replicas';

export const REVISION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY = 'deployment.kubernetes.io/revision-history';
export const POD_TEMPLATE_HASH = 'pod-template-hash';
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const ROLLBACK_TO = 'deprecated.deployment.rollback.to';

/** Deployment annotations that never travel to ReplicaSets (annotationsToSkip). */
const SKIPPED = new Set([LAST_APPLIED, REVISION, REVISION_HISTORY, DESIRED_REPLICAS, MAX_REPLICAS, ROLLBACK_TO]);

export function revisionOf(obj: { metadata: { annotations?: Record<string, string> } } | undefined): number {
  const v = obj?.metadata.annotations?.[REVISION];
  return v && /^\d+$/.test(v) ? Number(v) : 0;
}

export function maxRevision(rss: ReplicaSet[]): number {
  return rss.reduce((m, rs) => Math.max(m, revisionOf(rs)), 0);
}

/** ReplicaSetsByRevision: ascending revision, creation time on ties. */
export function byRevision(a: ReplicaSet, b: ReplicaSet): number {
  const d = revisionOf(a) - revisionOf(b);
  return d !== 0 ? d : byCreation(a, b);
}

/**
 * SetNewReplicaSetAnnotations: copy the deployment's own annotations, raise
 * the revision (keeping the superseded one in revision-history), and on a
 * ReplicaSet being created, its replicas annotations. Returns whether anything changed.
 */
export function setNewReplicaSetAnnotations(d: Deployment, rs: ReplicaSet, newRevision: number, exists: boolean, maxHistoryChars = 2000): boolean {
  const a = (rs.metadata.annotations ??= {});
  let changed = false;
  for (const [k, v] of Object.entries(d.metadata.annotations ?? {})) {
    if (SKIPPED.has(k) || a[k] === v) continue;
    a[k] = v;
    changed = true;
  }
  const old = a[REVISION];
  const oldNum = old && /^\d+$/.test(old) ? Number(old) : 0;
  if (oldNum < newRevision) {
    a[REVISION] = String(newRevision);
    changed = true;
    if (old !== undefined && old !== '') {
      const history = a[REVISION_HISTORY] ? a[REVISION_HISTORY].split(',') : [];
      history.push(old);
      let joined = history.join(',');
      while (joined.length > maxHistoryChars && history.length > 1) {
        history.shift();
        joined = history.join(',');
      }
      a[REVISION_HISTORY] = joined;
    }
  }
  if (!exists && setReplicasAnnotations(rs, d.spec.replicas ?? 0, (d.spec.replicas ?? 0) + maxSurge(d))) changed = true;
  return changed;
}

/** SetDeploymentRevision: the deployment mirrors its new ReplicaSet's revision. */
export function setDeploymentRevision(d: Deployment, revision: string): boolean {
  const a = (d.metadata.annotations ??= {});
  if (a[REVISION] === revision) return false;
  a[REVISION] = revision;
  return true;
}

/** A template with the pod-template-hash label taken out, for EqualIgnoreHash. */
function withoutHash(t: unknown): unknown {
  const copy = JSON.parse(JSON.stringify(t ?? {})) as { metadata?: { labels?: Record<string, string> } };
  if (copy.metadata?.labels) {
    delete copy.metadata.labels[POD_TEMPLATE_HASH];
    if (Object.keys(copy.metadata.labels).length === 0) delete copy.metadata.labels;
  }
  return copy;
}

/** Deep equality of JSON values, with empty maps equal to absent ones (Go's nil/empty maps print alike once serialized). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const present = (r: Record<string, unknown>, k: string): boolean => {
    const v = r[k];
    return v !== undefined && v !== null && !(typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0);
  };
  const keys = new Set([...Object.keys(ra), ...Object.keys(rb)]);
  for (const k of keys) {
    const pa = present(ra, k);
    if (pa !== present(rb, k)) return false;
    if (pa && !jsonEqual(ra[k], rb[k])) return false;
  }
  return true;
}

export const equalIgnoreHash = (a: unknown, b: unknown): boolean => jsonEqual(withoutHash(a), withoutHash(b));

/** FindNewReplicaSet: the oldest ReplicaSet whose template is the deployment's. */
export function findNewReplicaSet(d: Deployment, rss: ReplicaSet[]): ReplicaSet | undefined {
  return [...rss].sort(byCreation).find((rs) => equalIgnoreHash(rs.spec.template, d.spec.template));
}
