// What deployments and replicasets share: the selector/template rules of
// ValidatePodTemplateSpecForReplicaSet, the replicas/selector checks, status
// field checks, and the autoscaling/v1 Scale view (scaleFromDeployment /
// scaleFromReplicaSet).

import type { KObject } from '../../../kube/object';
import { invalid as invalidStatus } from '../../api/status';
import { labelSelectorAsSelector } from '../../api/labelSelector';
import { type ErrorList, forbidden, immutable, invalid, nonNegative, notSupported, required } from '../../api/validation/field';
import { goLabelSelector, goMap } from '../../api/validation/gofmt';
import { validateLabels } from '../../api/validation/objectMeta';
import { validatePodTemplateSpec } from '../../api/validation/podSpec';
import { type Rec, isRec, num, recOpt } from '../common/obj';
import type { ScaleDef } from '../rest/resourceDef';

type Sel = { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] };

const selectorOps = ['In', 'NotIn', 'Exists', 'DoesNotExist'];

/** metav1validation.ValidateLabelSelector. */
export function validateLabelSelector(sel: Sel, path: string): ErrorList {
  const errs: ErrorList = [];
  errs.push(...validateLabels(sel.matchLabels, `${path}.matchLabels`));
  (sel.matchExpressions ?? []).forEach((e, i) => {
    const p = `${path}.matchExpressions[${i}]`;
    const n = e.values?.length ?? 0;
    if ((e.operator === 'In' || e.operator === 'NotIn') && n === 0) errs.push(required(`${p}.values`, 'must be specified when `operator` is \'In\' or \'NotIn\''));
    else if ((e.operator === 'Exists' || e.operator === 'DoesNotExist') && n > 0) errs.push(forbidden(`${p}.values`, 'may not be specified when `operator` is \'Exists\' or \'DoesNotExist\''));
    else if (!selectorOps.includes(e.operator)) errs.push(invalid(`${p}.operator`, e.operator, 'not a valid selector operator'));
  });
  return errs;
}

/** The selector and template part of ValidateDeploymentSpec / ValidateReplicaSetSpec. */
export function validateWorkloadSpec(spec: Rec, kindWord: string): ErrorList {
  const errs: ErrorList = [];
  const replicas = num(spec, 'replicas') ?? 0;
  errs.push(...nonNegative(replicas, 'spec.replicas'));
  errs.push(...nonNegative(num(spec, 'minReadySeconds') ?? 0, 'spec.minReadySeconds'));
  const sel = recOpt(spec, 'selector') as Sel | undefined;
  if (!sel) errs.push(required('spec.selector'));
  else {
    errs.push(...validateLabelSelector(sel, 'spec.selector'));
    if (Object.keys(sel.matchLabels ?? {}).length + (sel.matchExpressions ?? []).length === 0) errs.push(invalid('spec.selector', goLabelSelector(sel), `empty selector is invalid for ${kindWord}`));
  }
  let selector;
  try {
    selector = labelSelectorAsSelector(sel);
  } catch {
    errs.push(invalid('spec.selector', goLabelSelector(sel), 'invalid label selector'));
    return errs;
  }
  const template = recOpt(spec, 'template');
  if (!template) {
    errs.push(required('spec.template'));
    return errs;
  }
  const labels = (recOpt(template, 'metadata')?.labels ?? undefined) as Record<string, string> | undefined;
  if (!selector.empty() && !selector.matches(labels)) errs.push(invalid('spec.template.metadata.labels', goMap(labels), '`selector` does not match template `labels`'));
  errs.push(...validatePodTemplateSpec(template, 'spec.template'));
  const tspec = recOpt(template, 'spec');
  const rp = typeof tspec?.restartPolicy === 'string' ? tspec.restartPolicy : '';
  if (rp && rp !== 'Always') errs.push(notSupported('spec.template.spec.restartPolicy', rp, ['Always']));
  if (tspec?.activeDeadlineSeconds !== undefined) errs.push(forbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in ReplicaSet is not Supported'));
  return errs;
}

/** apps/v1 made spec.selector immutable. */
export function selectorImmutable(obj: KObject, old: KObject): ErrorList {
  const n = recOpt(obj.spec as Rec, 'selector');
  const o = recOpt(old.spec as Rec, 'selector');
  return immutable(n, o, 'spec.selector').map((e) => ({ ...e, badValue: goLabelSelector(n as Sel) }));
}

/** Status counters must be non-negative (ValidateDeploymentStatus / ValidateReplicaSetStatus). */
export function validateCounters(status: Rec | undefined, fields: string[]): ErrorList {
  const errs: ErrorList = [];
  for (const f of fields) errs.push(...nonNegative(num(status, f) ?? 0, `status.${f}`));
  return errs;
}

/** The /scale subresource of a workload with spec.replicas, status.replicas and spec.selector. */
export const workloadScale: ScaleDef = {
  toScale(obj) {
    const spec = (isRec(obj.spec) ? obj.spec : {}) as Rec;
    const status = (isRec(obj.status) ? obj.status : {}) as Rec;
    let selector = '';
    try {
      selector = labelSelectorAsSelector(recOpt(spec, 'selector') as Sel).toString();
    } catch {
      selector = '';
    }
    const meta: KObject['metadata'] = { name: obj.metadata.name, namespace: obj.metadata.namespace, uid: obj.metadata.uid, resourceVersion: obj.metadata.resourceVersion, creationTimestamp: obj.metadata.creationTimestamp };
    const scaleSpec: Rec = {};
    if (num(spec, 'replicas')) scaleSpec.replicas = num(spec, 'replicas');
    const scaleStatus: Rec = { replicas: num(status, 'replicas') ?? 0 };
    if (selector) scaleStatus.selector = selector;
    return { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: meta, spec: scaleSpec, status: scaleStatus };
  },
  applyScale(obj, scale) {
    const replicas = isRec(scale.spec) ? num(scale.spec, 'replicas') ?? 0 : 0;
    const errs = nonNegative(replicas, 'spec.replicas');
    if (errs.length) throw invalidStatus({ group: 'autoscaling', kind: 'Scale' }, scale.metadata?.name ?? obj.metadata.name ?? '', errs);
    const spec = (isRec(obj.spec) ? obj.spec : (obj.spec = {})) as Rec;
    spec.replicas = replicas;
  },
};
