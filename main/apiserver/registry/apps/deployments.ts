// apps/v1 deployments: kube's deploymentStrategy — defaults (1 replica,
// RollingUpdate 25%/25%, revisionHistoryLimit 10, progressDeadlineSeconds
// 600, pod template defaults), generation bumps on spec or annotation change,
// immutable selector, strategy rules, /status and /scale.

import type { KObject } from '../../../kube/object';
import { type ErrorList, forbidden, invalid, nonNegative, notSupported, required } from '../../api/validation/field';
import { nameIsDNSSubdomain } from '../../api/validation/names';
import { deepEqual } from '../../api/validation/field';
import { GoLiteral } from '../../api/status';
import { type Rec, isRec, num, rec, recOpt, setDefault, str } from '../common/obj';
import { ALL_VERBS, STATUS_VERBS, metaFields, simpleStrategy, statusStrategy } from '../common/define';
import { defaultPodTemplate } from '../core/podDefaults';
import type { ResourceDef } from '../rest/resourceDef';
import { deploymentTable } from '../tables/workloads';
import { selectorImmutable, validateCounters, validateWorkloadSpec, workloadScale } from './workload';

export function defaultDeployment(obj: KObject): void {
  const spec = rec(obj as Rec, 'spec');
  if (spec.replicas === undefined || spec.replicas === null) spec.replicas = 1;
  const strategy = rec(spec, 'strategy');
  setDefault(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    const ru = rec(strategy, 'rollingUpdate');
    if (ru.maxUnavailable === undefined || ru.maxUnavailable === null) ru.maxUnavailable = '25%';
    if (ru.maxSurge === undefined || ru.maxSurge === null) ru.maxSurge = '25%';
  }
  if (spec.revisionHistoryLimit === undefined || spec.revisionHistoryLimit === null) spec.revisionHistoryLimit = 10;
  if (spec.progressDeadlineSeconds === undefined || spec.progressDeadlineSeconds === null) spec.progressDeadlineSeconds = 600;
  defaultPodTemplate(rec(spec, 'template'));
}

/** intstr as Go's %#v prints it in field errors. */
const goIntOrString = (v: unknown) =>
  new GoLiteral(typeof v === 'number' ? `intstr.IntOrString{Type:0, IntVal:${v}, StrVal:""}` : `intstr.IntOrString{Type:1, IntVal:0, StrVal:${JSON.stringify(v)}}`);

function intOrPercent(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^\d+%$/.test(v)) return Number(v.slice(0, -1));
  return -1;
}

function validatePositiveIntOrPercent(v: unknown, path: string): ErrorList {
  if (typeof v === 'string') {
    return /^[0-9]+%$/.test(v)
      ? []
      : [invalid(path, goIntOrString(v), "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')")];
  }
  return typeof v === 'number' ? nonNegative(v, path) : [];
}

function validateStrategy(strategy: Rec | undefined): ErrorList {
  const s = strategy ?? {};
  const type = str(s, 'type');
  if (type === 'Recreate') {
    return s.rollingUpdate !== undefined && s.rollingUpdate !== null ? [forbidden('spec.strategy.rollingUpdate', "may not be specified when strategy `type` is 'Recreate'")] : [];
  }
  if (type !== 'RollingUpdate') return [notSupported('spec.strategy', type, ['Recreate', 'RollingUpdate'])];
  const ru = recOpt(s, 'rollingUpdate');
  if (!ru) return [required('spec.strategy.rollingUpdate', 'this should be defaulted and never be nil')];
  const errs: ErrorList = [
    ...validatePositiveIntOrPercent(ru.maxUnavailable, 'spec.strategy.rollingUpdate.maxUnavailable'),
    ...validatePositiveIntOrPercent(ru.maxSurge, 'spec.strategy.rollingUpdate.maxSurge'),
  ];
  if (intOrPercent(ru.maxUnavailable) === 0 && intOrPercent(ru.maxSurge) === 0) {
    errs.push(invalid('spec.strategy.rollingUpdate.maxUnavailable', goIntOrString(ru.maxUnavailable), 'may not be 0 when `maxSurge` is 0'));
  }
  if (typeof ru.maxUnavailable === 'string' && intOrPercent(ru.maxUnavailable) > 100) {
    errs.push(invalid('spec.strategy.rollingUpdate.maxUnavailable', goIntOrString(ru.maxUnavailable), 'must not be greater than 100%'));
  }
  return errs;
}

export function validateDeploymentSpec(obj: KObject): ErrorList {
  const spec = (isRec(obj.spec) ? obj.spec : {}) as Rec;
  const errs = validateWorkloadSpec(spec, 'deployment');
  errs.push(...validateStrategy(recOpt(spec, 'strategy')));
  if (spec.revisionHistoryLimit !== undefined) errs.push(...nonNegative(num(spec, 'revisionHistoryLimit') ?? 0, 'spec.revisionHistoryLimit'));
  const pds = num(spec, 'progressDeadlineSeconds');
  if (pds !== undefined) {
    errs.push(...nonNegative(pds, 'spec.progressDeadlineSeconds'));
    if (pds <= (num(spec, 'minReadySeconds') ?? 0)) errs.push(invalid('spec.progressDeadlineSeconds', pds, 'must be greater than minReadySeconds'));
  }
  return errs;
}

const deploymentStrategy = simpleStrategy({
  namespaced: true,
  nameFn: nameIsDNSSubdomain,
  generation: true,
  hasStatus: true,
  defaults: defaultDeployment,
  prepareForCreate(obj) {
    obj.status = {};
  },
  prepareForUpdate(obj, old) {
    // Annotations are copied to replica sets, so their changes count as new generations too.
    if (!deepEqual(obj.metadata.annotations ?? {}, old.metadata.annotations ?? {}) && obj.metadata.generation === old.metadata.generation) {
      obj.metadata.generation = (old.metadata.generation ?? 0) + 1;
    }
  },
  validate: validateDeploymentSpec,
  validateUpdate: selectorImmutable,
});

const statusCounters = ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas', 'collisionCount'];

export const deployments: ResourceDef = {
  group: 'apps',
  version: 'v1',
  kind: 'Deployment',
  listKind: 'DeploymentList',
  resource: 'deployments',
  singular: 'deployment',
  namespaced: true,
  shortNames: ['deploy'],
  categories: ['all'],
  verbs: ALL_VERBS,
  storagePrefix: 'deployments',
  protoType: 'k8s.io.api.apps.v1.Deployment',
  subresources: [
    { name: 'scale', kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: STATUS_VERBS },
    { name: 'status', kind: { group: 'apps', version: 'v1', kind: 'Deployment' }, verbs: STATUS_VERBS },
  ],
  strategy: deploymentStrategy,
  statusStrategy: statusStrategy(deploymentStrategy, {
    keepMeta: ['labels'],
    validateStatus: (obj) => validateCounters(isRec(obj.status) ? obj.status : undefined, statusCounters),
  }),
  scale: workloadScale,
  table: deploymentTable,
  selectableFields: (obj) => metaFields(obj, true),
};
