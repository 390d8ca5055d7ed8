// core/v1 pods: kube's podStrategy (pkg/registry/core/pod/strategy.go) —
// status starts Pending with a QoS class, spec is immutable but for a few
// fields, graceful deletion (CheckGracefulDelete), the status subresource
// that leaves spec alone, and POST pods/NAME/binding (BindingREST).

import type { KObject } from '../../../kube/object';
import { conflict, failure, fieldErrorBody } from '../../api/status';
import { type ErrorList, notSupported, required } from '../../api/validation/field';
import { nameIsDNSSubdomain } from '../../api/validation/names';
import { validatePodSpec } from '../../api/validation/podSpec';
import { validatePodSpecUpdate } from '../../api/validation/podUpdate';
import { type Rec, arr, isRec, rec, recOpt, rfc3339, str } from '../common/obj';
import { ALL_VERBS, STATUS_VERBS, metaFields, simpleStrategy, statusStrategy } from '../common/define';
import type { BindingDef, ResourceDef } from '../rest/resourceDef';
import { podTable } from '../tables/pods';
import { defaultPod } from './podDefaults';

/** qos.GetPodQOS, reduced to cpu/memory as kube counts them. */
export function podQOS(spec: Rec): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const containers = [...arr(spec, 'containers'), ...arr(spec, 'initContainers')];
  let any = false;
  let guaranteed = true;
  for (const c of containers) {
    const res = recOpt(c, 'resources');
    const req = recOpt(res, 'requests') ?? {};
    const lim = recOpt(res, 'limits') ?? {};
    for (const r of ['cpu', 'memory']) {
      if (req[r] !== undefined || lim[r] !== undefined) any = true;
      if (lim[r] === undefined || (req[r] !== undefined && String(req[r]) !== String(lim[r]))) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/** podutil.UpdatePodCondition: replace or append, keeping lastTransitionTime when status is unchanged. */
export function setPodCondition(status: Rec, cond: { type: string; status: string; reason?: string; message?: string }, now: Date): void {
  const conditions = Array.isArray(status.conditions) ? (status.conditions as Rec[]) : (status.conditions = []) as Rec[];
  const idx = conditions.findIndex((c) => isRec(c) && c.type === cond.type);
  const next: Rec = { type: cond.type, status: cond.status, lastProbeTime: null, lastTransitionTime: rfc3339(now) };
  if (cond.reason) next.reason = cond.reason;
  if (cond.message) next.message = cond.message;
  if (idx < 0) conditions.push(next);
  else {
    const old = conditions[idx];
    if (old.status === cond.status) next.lastTransitionTime = old.lastTransitionTime;
    if (old.lastProbeTime !== undefined) next.lastProbeTime = old.lastProbeTime;
    conditions[idx] = next;
  }
}

const podMain = simpleStrategy({
  namespaced: true,
  nameFn: nameIsDNSSubdomain,
  hasStatus: true,
  defaults: (obj) => defaultPod(obj as Rec),
  prepareForCreate(obj) {
    const spec = rec(obj as Rec, 'spec');
    // What the Priority admission plugin writes for pods without a priority class.
    if (spec.priority === undefined && !str(spec, 'priorityClassName')) spec.priority = 0;
    if (spec.preemptionPolicy === undefined) spec.preemptionPolicy = 'PreemptLowerPriority';
    const status: Rec = { phase: 'Pending', qosClass: podQOS(spec) };
    // applySchedulingGatedCondition: appended as is, so both times are zero (null).
    if (arr(spec, 'schedulingGates').length) {
      status.conditions = [{ type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: null, reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates' }];
    }
    obj.status = status;
  },
  validate: (obj) => validatePodSpec(isRec(obj.spec) ? obj.spec : undefined, 'spec'),
  validateUpdate: (obj, old) => validatePodSpecUpdate(obj.spec as Rec, old.spec as Rec),
});

const podStrategy = {
  ...podMain,
  /** CheckGracefulDelete: requested or spec grace; unscheduled or finished pods go at once (0); negative → 1. */
  gracePeriodSeconds(obj: KObject, requested: number | undefined): number {
    const spec = isRec(obj.spec) ? obj.spec : {};
    let period = requested ?? (typeof spec.terminationGracePeriodSeconds === 'number' ? spec.terminationGracePeriodSeconds : 0);
    if (!str(spec, 'nodeName')) period = 0;
    const phase = isRec(obj.status) ? str(obj.status, 'phase') : '';
    if (phase === 'Failed' || phase === 'Succeeded') period = 0;
    if (period < 0) period = 1;
    return period;
  },
};

const podPhases = ['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown'];

const podStatusStrategy = statusStrategy(podStrategy, {
  keepMeta: ['ownerReferences'],
  prepare(obj, old) {
    // The QoS class is fixed at creation; old kubelets dropped it, so it is backfilled.
    const status = rec(obj as Rec, 'status');
    if (!status.qosClass && isRec(old.status) && old.status.qosClass) status.qosClass = old.status.qosClass;
    delete obj.metadata.deletionTimestamp;
    if (old.metadata.deletionTimestamp) obj.metadata.deletionTimestamp = old.metadata.deletionTimestamp;
  },
  validateStatus(obj) {
    const errs: ErrorList = [];
    const phase = isRec(obj.status) ? str(obj.status, 'phase') : '';
    if (phase && !podPhases.includes(phase)) errs.push(notSupported('status.phase', phase, podPhases));
    return errs;
  },
});

function statusError500(message: string) {
  return failure(500, '', message);
}

export const podBinding: BindingDef = {
  bind(pod, binding) {
    const name = pod.metadata.name ?? '';
    const target = isRec(binding.target) ? binding.target : {};
    const errs: ErrorList = [];
    if (str(target, 'kind') && str(target, 'kind') !== 'Node') errs.push(notSupported('target.kind', str(target, 'kind'), ['Node', '<empty>']));
    if (!str(target, 'name')) errs.push(required('target.name'));
    if (errs.length) {
      const msgs = errs.map((e) => `${e.field}: ${fieldErrorBody(e)}`);
      throw statusError500(msgs.length === 1 ? msgs[0] : `[${msgs.join(', ')}]`);
    }
    const why = (m: string) => conflict({ group: '', resource: 'pods/binding' }, name, m);
    const spec = rec(pod as Rec, 'spec');
    if (pod.metadata.deletionTimestamp) throw why(`pod ${name} is being deleted, cannot be assigned to a host`);
    if (str(spec, 'nodeName')) throw why(`pod ${name} is already assigned to node ${JSON.stringify(str(spec, 'nodeName'))}`);
    if (arr(spec, 'schedulingGates').length) throw why(`pod ${name} has non-empty .spec.schedulingGates`);
    spec.nodeName = str(target, 'name');
    const ann = binding.metadata?.annotations ?? {};
    if (Object.keys(ann).length) pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), ...ann };
    setPodCondition(rec(pod as Rec, 'status'), { type: 'PodScheduled', status: 'True' }, new Date());
  },
};

/** Checks done before bind on the request itself (BindingREST.Create): the URL name must be the Binding's. */
export function checkBindingName(urlName: string, binding: KObject): void {
  if (binding.metadata?.name !== urlName) throw failure(400, 'BadRequest', 'name in URL does not match name in Binding object');
}

export function podFields(obj: KObject): Record<string, string> {
  const spec = isRec(obj.spec) ? obj.spec : {};
  const status = isRec(obj.status) ? obj.status : {};
  const ips = arr(status, 'podIPs');
  return {
    ...metaFields(obj, true),
    'spec.nodeName': str(spec, 'nodeName'),
    'spec.restartPolicy': str(spec, 'restartPolicy'),
    'spec.schedulerName': str(spec, 'schedulerName'),
    'spec.serviceAccountName': str(spec, 'serviceAccountName'),
    'spec.hostNetwork': String(spec.hostNetwork === true),
    'status.phase': str(status, 'phase'),
    'status.podIP': ips.length ? str(ips[0], 'ip') : '',
    'status.nominatedNodeName': str(status, 'nominatedNodeName'),
  };
}

export const pods: ResourceDef = {
  group: '',
  version: 'v1',
  kind: 'Pod',
  listKind: 'PodList',
  resource: 'pods',
  singular: 'pod',
  namespaced: true,
  shortNames: ['po'],
  categories: ['all'],
  verbs: ALL_VERBS,
  storagePrefix: 'pods',
  protoType: 'k8s.io.api.core.v1.Pod',
  subresources: [
    { name: 'status', kind: { group: '', version: 'v1', kind: 'Pod' }, verbs: STATUS_VERBS },
    { name: 'binding', kind: { group: '', version: 'v1', kind: 'Binding' }, verbs: ['create'] },
  ],
  strategy: podStrategy,
  statusStrategy: podStatusStrategy,
  binding: podBinding,
  table: podTable,
  selectableFields: podFields,
};
