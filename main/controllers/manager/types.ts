// The JSON shapes the controller manager reads and writes: only the fields its
// controllers look at, as the API server sends them (timestamps are RFC 3339
// strings, int-or-string stays as sent).

import type { KObject, ObjectMeta, OwnerReference } from '../../kube/object';

export type { KObject, ObjectMeta, OwnerReference };
export type { LabelSelector, LabelSelectorRequirement } from '../../kube/labelSelectors';
import type { LabelSelector } from '../../kube/labelSelectors';

export type IntOrString = number | string;

export interface PodTemplateSpec {
  metadata?: ObjectMeta;
  spec?: Record<string, unknown>;
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

export interface DeploymentStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  terminatingReplicas?: number;
  collisionCount?: number;
  conditions?: Condition[];
}

export interface Deployment extends KObject {
  spec: {
    replicas?: number;
    selector: LabelSelector;
    template: PodTemplateSpec;
    strategy?: { type?: 'RollingUpdate' | 'Recreate'; rollingUpdate?: { maxSurge?: IntOrString; maxUnavailable?: IntOrString } };
    minReadySeconds?: number;
    revisionHistoryLimit?: number;
    paused?: boolean;
    progressDeadlineSeconds?: number;
  };
  status?: DeploymentStatus;
}

export interface ReplicaSetStatus {
  replicas?: number;
  fullyLabeledReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  observedGeneration?: number;
  conditions?: Condition[];
}

export interface ReplicaSet extends KObject {
  spec: { replicas?: number; minReadySeconds?: number; selector: LabelSelector; template?: PodTemplateSpec };
  status?: ReplicaSetStatus;
}

export interface ContainerPort {
  name?: string;
  containerPort: number;
  protocol?: string;
}

export interface Pod extends KObject {
  spec?: { nodeName?: string; containers?: { name: string; ports?: ContainerPort[] }[]; [k: string]: unknown };
  status?: {
    phase?: string;
    podIP?: string;
    conditions?: { type: string; status: string; lastTransitionTime?: string }[];
    containerStatuses?: { restartCount?: number }[];
  };
}

/** Numeric spec.replicas with kube's default of 1 already applied by the API server; 0 when absent. */
export const specReplicas = (o: { spec: { replicas?: number } } | undefined): number => o?.spec.replicas ?? 0;

/** The owner reference with controller=true, if any (metav1.GetControllerOf). */
export function controllerOf(obj: KObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((r) => r.controller === true);
}

/** creationTimestamp then name, as kube's ReplicaSetsByCreationTimestamp / ActivePods tie-breaks. */
export function byCreation(a: KObject, b: KObject): number {
  const ta = a.metadata.creationTimestamp ?? '';
  const tb = b.metadata.creationTimestamp ?? '';
  if (ta !== tb) return ta < tb ? -1 : 1;
  const na = a.metadata.name ?? '';
  const nb = b.metadata.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}
