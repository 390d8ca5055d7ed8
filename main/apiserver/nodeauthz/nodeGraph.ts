// What each node may read, from the pods bound to it (kube's node authorizer
// graph, reduced to the edges Pilothouse serves): a pod with spec.nodeName
// links its node to the secrets, configmaps, persistent volume claims and
// service account it references. Kept from a watch on the pods cache, with
// each pod's edges remembered so an update or delete removes exactly them.

import type { KObject } from '../../kube/object';

export type RefType = 'secrets' | 'configmaps' | 'persistentvolumeclaims' | 'serviceaccounts';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const arr = (v: unknown): Rec[] => (Array.isArray(v) ? (v as Rec[]) : []);
const name = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Every object a pod references, as "type/namespace/name" (kube's graph_populator AddPod). */
export function podReferences(pod: KObject): string[] {
  const ns = pod.metadata?.namespace ?? '';
  const spec = rec(pod.spec);
  const out = new Set<string>();
  const add = (type: RefType, n: string) => {
    if (n) out.add(`${type}/${ns}/${n}`);
  };
  add('serviceaccounts', name(spec.serviceAccountName));
  for (const s of arr(spec.imagePullSecrets)) add('secrets', name(s.name));
  for (const v of arr(spec.volumes)) {
    add('secrets', name(rec(v.secret).secretName));
    add('configmaps', name(rec(v.configMap).name));
    add('persistentvolumeclaims', name(rec(v.persistentVolumeClaim).claimName));
    if (v.ephemeral) add('persistentvolumeclaims', `${pod.metadata?.name ?? ''}-${name(v.name)}`);
    for (const src of arr(rec(v.projected).sources)) {
      add('secrets', name(rec(src.secret).name));
      add('configmaps', name(rec(src.configMap).name));
    }
    for (const k of ['cephfs', 'cinder', 'flexVolume', 'iscsi', 'rbd', 'scaleIO', 'storageos']) add('secrets', name(rec(rec(v[k]).secretRef).name));
    add('secrets', name(rec(v.azureFile).secretName));
    add('secrets', name(rec(rec(v.csi).nodePublishSecretRef).name));
  }
  for (const c of [...arr(spec.initContainers), ...arr(spec.containers), ...arr(spec.ephemeralContainers)]) {
    for (const e of arr(c.env)) {
      const from = rec(e.valueFrom);
      add('secrets', name(rec(from.secretKeyRef).name));
      add('configmaps', name(rec(from.configMapKeyRef).name));
    }
    for (const e of arr(c.envFrom)) {
      add('secrets', name(rec(e.secretRef).name));
      add('configmaps', name(rec(e.configMapRef).name));
    }
  }
  return [...out];
}

export class NodeGraph {
  /** node → reference → how many of its pods hold it. */
  private readonly byNode = new Map<string, Map<string, number>>();
  /** pod key → its node and references, as last added. */
  private readonly pods = new Map<string, { node: string; refs: string[] }>();

  /** A pod was added or changed (pods without a node add nothing). */
  setPod(pod: KObject): void {
    const key = `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
    this.deletePod(key);
    const node = name(rec(pod.spec).nodeName);
    if (!node) return;
    const refs = podReferences(pod);
    this.pods.set(key, { node, refs });
    let m = this.byNode.get(node);
    if (!m) this.byNode.set(node, (m = new Map()));
    for (const r of refs) m.set(r, (m.get(r) ?? 0) + 1);
  }

  deletePod(key: string): void {
    const had = this.pods.get(key);
    if (!had) return;
    this.pods.delete(key);
    const m = this.byNode.get(had.node)!;
    for (const r of had.refs) {
      const n = (m.get(r) ?? 0) - 1;
      if (n <= 0) m.delete(r);
      else m.set(r, n);
    }
    if (m.size === 0) this.byNode.delete(had.node);
  }

  clear(): void {
    this.byNode.clear();
    this.pods.clear();
  }

  hasPath(node: string, type: RefType, namespace: string, objName: string): boolean {
    return this.byNode.get(node)?.has(`${type}/${namespace}/${objName}`) ?? false;
  }
}
