// The NodeRestriction admission plugin (kube's
// plugin/pkg/admission/noderestriction), which kubeadm turns on: the Node
// authorizer decides which kinds of object a kubelet may write; this plugin
// decides which objects. A request from a node (user system:node:<name> in
// group system:nodes) may
//   - create only mirror pods bound to itself and owned by its Node, with no
//     service account, secret, configmap, PVC or cluster trust bundle in them;
//     delete (and evict) only pods bound to itself;
//   - update status only of pods bound to itself, and not their labels;
//   - create and modify only its own Node: not its taints, not labels under
//     node-restriction.kubernetes.io, nor kubernetes.io / k8s.io labels other
//     than the kubelet's own (hostname, os, arch, zone, instance type,
//     kubelet.kubernetes.io/*, node.kubernetes.io/*);
//   - touch only its own Lease, in kube-node-lease;
//   - request service-account tokens only bound to a pod on itself.
// Everything else from a node is left to the authorizer. Denials are kube's
// 403 `<resource> "<name>" is forbidden: <why>` with kube's wording.

import type { KObject } from '../../kube/object';
import { notFound } from '../api/status';
import { NODE_LEASE_NAMESPACE, nodeIdentity } from '../nodeauthz/nodeAuthorizer';
import { podReferences } from '../nodeauthz/nodeGraph';
import type { AdmissionAttributes, AdmissionPlugin } from './interfaces';
import type { ServerEnv } from '../serverEnv';
import { StorageError } from '../storage/interface';
import { admissionForbidden } from './errors/forbidden';
import { MIRROR_POD_ANNOTATION } from './serviceAccount';

const NODE_RESTRICTION_LABEL_NAMESPACE = 'node-restriction.kubernetes.io';

/** k8s.io/kubelet/pkg/apis: labels a kubelet may set on its own Node. */
const KUBELET_LABELS = new Set([
  'kubernetes.io/hostname',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'beta.kubernetes.io/instance-type',
  'node.kubernetes.io/instance-type',
  'kubernetes.io/os',
  'kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
]);
const KUBELET_LABEL_NAMESPACES = ['kubelet.kubernetes.io', 'node.kubernetes.io'];

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const arr = (v: unknown): Rec[] => (Array.isArray(v) ? (v as Rec[]) : []);

const labelNamespace = (key: string): string => (key.includes('/') ? key.slice(0, key.indexOf('/')) : '');
const inNamespace = (ns: string, domain: string): boolean => ns === domain || ns.endsWith(`.${domain}`);

function isKubeletLabel(key: string): boolean {
  return KUBELET_LABELS.has(key) || KUBELET_LABEL_NAMESPACES.some((d) => inNamespace(labelNamespace(key), d));
}

/** Label keys added, removed or changed between a and b, sorted (kube's sets.String.List()). */
function modifiedLabels(a: Record<string, string> | undefined, b: Record<string, string> | undefined): string[] {
  const out = new Set<string>();
  for (const [k, v] of Object.entries(a ?? {})) if (b?.[k] !== v) out.add(k);
  for (const [k, v] of Object.entries(b ?? {})) if (a?.[k] !== v) out.add(k);
  return [...out].sort();
}

function forbiddenLabels(keys: string[]): string[] {
  return keys.filter((k) => {
    const ns = labelNamespace(k);
    if (inNamespace(ns, NODE_RESTRICTION_LABEL_NAMESPACE)) return true;
    return (inNamespace(ns, 'kubernetes.io') || inNamespace(ns, 'k8s.io')) && !isKubeletLabel(k);
  });
}

/** Deep equality of JSON values (the taints, labels and claim statuses compared here). */
function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

export function nodeRestrictionPlugin(env: ServerEnv): AdmissionPlugin {
  /** The cached object (kube reads its informers), or a NotFound error. */
  async function lookup(resource: 'pods' | 'nodes', namespace: string, name: string): Promise<KObject> {
    try {
      return await env.storageFor(resource).get(env.keyFor(resource, '', namespace, name), { resourceVersion: '0' });
    } catch (err) {
      if (err instanceof StorageError && err.code === 'KeyNotFound') throw notFound({ group: '', resource }, name);
      throw err;
    }
  }

  async function admitPod(node: string, a: AdmissionAttributes): Promise<void> {
    if (a.operation === 'CREATE') return admitMirrorPodCreate(node, a);
    if (a.operation === 'DELETE') {
      const existing = await lookup('pods', a.namespace, a.name);
      if (rec(existing.spec).nodeName !== node) throw admissionForbidden(a, `node "${node}" can only delete pods with spec.nodeName set to itself`);
      return;
    }
    throw admissionForbidden(a, `unexpected operation "${a.operation}", node "${node}" can only create and delete mirror pods`);
  }

  async function admitMirrorPodCreate(node: string, a: AdmissionAttributes): Promise<void> {
    const pod = a.object!;
    const spec = rec(pod.spec);
    if (!(pod.metadata?.annotations && MIRROR_POD_ANNOTATION in pod.metadata.annotations)) {
      throw admissionForbidden(a, `pod does not have "${MIRROR_POD_ANNOTATION}" annotation, node "${node}" can only create mirror pods`);
    }
    if (spec.nodeName !== node) throw admissionForbidden(a, `node "${node}" can only create pods with spec.nodeName set to itself`);
    const owners = pod.metadata?.ownerReferences ?? [];
    if (owners.length > 1) throw admissionForbidden(a, `node "${node}" can only create pods with a single owner reference set to itself`);
    if (owners.length === 0) throw admissionForbidden(a, `node "${node}" can only create pods with an owner reference set to itself`);
    const owner = owners[0]!;
    if (owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== node) {
      throw admissionForbidden(a, `node "${node}" can only create pods with an owner reference set to itself`);
    }
    if (owner.controller !== true) throw admissionForbidden(a, `node "${node}" can only create pods with a controller owner reference set to itself`);
    if (owner.blockOwnerDeletion === true) throw admissionForbidden(a, `node "${node}" must not set blockOwnerDeletion on an owner reference`);
    const nodeObj = await lookup('nodes', '', node);
    if (owner.uid !== nodeObj.metadata?.uid) throw admissionForbidden(a, `node ${node} UID mismatch: expected ${owner.uid} got ${nodeObj.metadata?.uid ?? ''}`);

    if (spec.serviceAccountName) throw admissionForbidden(a, `node "${node}" can not create pods that reference a service account`);
    const refs = podReferences(pod);
    if (refs.some((r) => r.startsWith('secrets/'))) throw admissionForbidden(a, `node "${node}" can not create pods that reference secrets`);
    if (refs.some((r) => r.startsWith('configmaps/'))) throw admissionForbidden(a, `node "${node}" can not create pods that reference configmaps`);
    const volumes = arr(spec.volumes);
    if (volumes.some((v) => arr(rec(v.projected).sources).some((s) => s.clusterTrustBundle !== undefined))) {
      throw admissionForbidden(a, `node "${node}" can not create pods that reference clustertrustbundles`);
    }
    if (volumes.some((v) => v.persistentVolumeClaim !== undefined)) throw admissionForbidden(a, `node "${node}" can not create pods that reference persistentvolumeclaims`);
  }

  function admitPodStatus(node: string, a: AdmissionAttributes): void {
    if (a.operation !== 'UPDATE') throw admissionForbidden(a, `unexpected operation "${a.operation}"`);
    const oldPod = a.oldObject!;
    if (rec(oldPod.spec).nodeName !== node) throw admissionForbidden(a, `node "${node}" can only update pod status for pods with spec.nodeName set to itself`);
    const newPod = a.object!;
    if (modifiedLabels(oldPod.metadata?.labels, newPod.metadata?.labels).length > 0) throw admissionForbidden(a, `node "${node}" cannot update labels through pod status`);
    const claims = (p: KObject) => arr(rec(p.status).resourceClaimStatuses).map((c) => ({ name: c.name, resourceClaimName: c.resourceClaimName ?? null }));
    if (!sameJson(claims(oldPod), claims(newPod))) throw admissionForbidden(a, `node "${node}" cannot update resource claim statues`);
  }

  async function admitPodEviction(node: string, a: AdmissionAttributes): Promise<void> {
    if (a.operation !== 'CREATE') throw admissionForbidden(a, `unexpected operation ${a.operation}`);
    const podName = a.name || a.object?.metadata?.name || '';
    if (!podName) throw admissionForbidden(a, 'could not determine pod from request data');
    const existing = await lookup('pods', a.namespace, podName);
    if (rec(existing.spec).nodeName !== node) throw admissionForbidden(a, `node ${node} can only evict pods with spec.nodeName set to itself`);
  }

  function admitNode(node: string, a: AdmissionAttributes): void {
    const requested = a.name || a.object?.metadata?.name || '';
    if (requested !== node) throw admissionForbidden(a, `node "${node}" is not allowed to modify node "${requested}"`);
    if (a.operation === 'CREATE') {
      const obj = a.object!;
      if (rec(obj.spec).configSource != null) throw admissionForbidden(a, `node "${node}" is not allowed to create pods with a non-nil configSource`);
      const bad = forbiddenLabels(modifiedLabels(obj.metadata?.labels, undefined));
      if (bad.length > 0) throw admissionForbidden(a, `node "${node}" is not allowed to set the following labels: ${bad.join(', ')}`);
    }
    if (a.operation === 'UPDATE') {
      const obj = a.object!;
      const old = a.oldObject!;
      const source = rec(obj.spec).configSource;
      if (source != null && !sameJson(source, rec(old.spec).configSource)) {
        throw admissionForbidden(a, `node "${node}" is not allowed to update configSource to a new non-nil configSource`);
      }
      if (!sameJson(rec(obj.spec).taints, rec(old.spec).taints)) throw admissionForbidden(a, `node "${node}" is not allowed to modify taints`);
      const bad = forbiddenLabels(modifiedLabels(obj.metadata?.labels, old.metadata?.labels));
      if (bad.length > 0) throw admissionForbidden(a, `is not allowed to modify labels: ${bad.join(', ')}`);
    }
  }

  async function admitTokenRequest(node: string, a: AdmissionAttributes): Promise<void> {
    if (a.operation !== 'CREATE' || a.subresource !== 'token') return;
    const ref = rec(rec(a.object?.spec).boundObjectRef);
    if (ref.apiVersion !== 'v1' || ref.kind !== 'Pod' || !ref.name) throw admissionForbidden(a, 'node requested token not bound to a pod');
    if (!ref.uid) throw admissionForbidden(a, 'node requested token with a pod binding without a uid');
    const pod = await lookup('pods', a.namespace, String(ref.name));
    if (ref.uid !== pod.metadata?.uid) {
      throw admissionForbidden(
        a,
        `the UID in the bound object reference (${String(ref.uid)}) does not match the UID in record. The object might have been deleted and then recreated`,
      );
    }
    if (rec(pod.spec).nodeName !== node) throw admissionForbidden(a, 'node requested token bound to a pod scheduled on a different node');
  }

  function admitLease(node: string, a: AdmissionAttributes): void {
    if (a.namespace !== NODE_LEASE_NAMESPACE) throw admissionForbidden(a, `can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`);
    const name = a.operation === 'CREATE' ? a.object?.metadata?.name : a.name;
    if (name !== node) throw admissionForbidden(a, 'can only access node lease with the same name as the requesting node');
  }

  return {
    name: 'NodeRestriction',
    handles: (a) => (a.operation === 'CREATE' || a.operation === 'UPDATE' || a.operation === 'DELETE') && a.user.username.startsWith('system:node'),
    async admit(a) {
      const node = nodeIdentity(a.user);
      if (node === undefined) return;
      if (node === '') throw admissionForbidden(a, `could not determine node from user "${a.user.username}"`);
      if (a.group === '' && a.resource === 'pods') {
        if (a.subresource === '') return admitPod(node, a);
        if (a.subresource === 'status') return admitPodStatus(node, a);
        if (a.subresource === 'eviction') return admitPodEviction(node, a);
        throw admissionForbidden(a, `unexpected pod subresource "${a.subresource}", only 'status' and 'eviction' are allowed`);
      }
      if (a.group === '' && a.resource === 'nodes') return admitNode(node, a);
      if (a.group === '' && a.resource === 'serviceaccounts') return admitTokenRequest(node, a);
      if (a.group === 'coordination.k8s.io' && a.resource === 'leases') return admitLease(node, a);
    },
  };
}
