// What an object costs in quota (kube's pkg/quota/v1/evaluator/core and the
// generic object-count evaluator), shared by the ResourceQuota admission
// plugin and the resource quota controller:
//   - pods: `pods` and compute resources (cpu/memory = requests.*,
//     limits.*, ephemeral-storage, hugepages-*, extended requests.*) while
//     the pod is not terminal; `count/pods` always. Scopes Terminating /
//     NotTerminating (activeDeadlineSeconds), BestEffort / NotBestEffort (QoS)
//     and PriorityClass. Constraint: a quota on cpu or memory requires every
//     container to state it (`must specify limits.cpu for: nginx`);
//   - services: `services`, `count/services`, `services.nodeports`,
//     `services.loadbalancers`;
//   - everything else: an object count, `count/<resource>[.<group>]`, plus the
//     legacy bare names of configmaps, secrets, resourcequotas,
//     replicationcontrollers and persistentvolumeclaims.
// Scoped quotas never match anything but pods (MatchesNoScopeFunc).

import type { KObject } from '../object';
import type { AdmissionOperation } from '../admissionOperation';
import { podLimits, podRequests, type ContainerSpec, type PodSpecResources } from './podResources';
import { parseList, parseQuantity, type Quantity } from './quantity';

export interface ScopeRequirement {
  scopeName: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

export interface ResourceQuotaObject extends KObject {
  spec?: { hard?: Record<string, string>; scopes?: string[]; scopeSelector?: { matchExpressions?: ScopeRequirement[] } };
  status?: { hard?: Record<string, string>; used?: Record<string, string> };
}

export interface QuotaEvaluator {
  group: string;
  resource: string;
  /** Operations whose objects change usage (kube's Handles). */
  handles(operation: AdmissionOperation): boolean;
  /** The names among `names` this evaluator measures. */
  matchingResources(names: string[]): string[];
  matchesScope(scope: ScopeRequirement, obj: KObject): boolean;
  /** The object's usage; `now` decides whether a deleted pod still counts. */
  usage(obj: KObject, now: Date): Map<string, Quantity>;
  /** An error text when the object cannot be charged against `required` (pods only). */
  constraints(required: string[], obj: KObject): string | undefined;
}

const one = (): Quantity => parseQuantity('1');
const count = (n: number): Quantity => parseQuantity(String(n));

export function objectCountName(group: string, resource: string): string {
  return group ? `count/${resource}.${group}` : `count/${resource}`;
}

const LEGACY_COUNT_NAMES: Record<string, string> = {
  configmaps: 'configmaps',
  secrets: 'secrets',
  resourcequotas: 'resourcequotas',
  replicationcontrollers: 'replicationcontrollers',
  persistentvolumeclaims: 'persistentvolumeclaims',
};

export function objectCountEvaluator(group: string, resource: string): QuotaEvaluator {
  const names = [objectCountName(group, resource)];
  if (!group && LEGACY_COUNT_NAMES[resource]) names.push(LEGACY_COUNT_NAMES[resource]);
  return {
    group,
    resource,
    handles: (op) => op === 'CREATE',
    matchingResources: (input) => input.filter((n) => names.includes(n)),
    matchesScope: () => false,
    usage: () => new Map(names.map((n) => [n, one()])),
    constraints: () => undefined,
  };
}

// ---- services ----

interface ServiceSpec {
  type?: string;
  ports?: { nodePort?: number }[];
  allocateLoadBalancerNodePorts?: boolean;
}

const SERVICE_NAMES = ['services', 'count/services', 'services.nodeports', 'services.loadbalancers'];

export const serviceEvaluator: QuotaEvaluator = {
  group: '',
  resource: 'services',
  handles: (op) => op === 'CREATE' || op === 'UPDATE',
  matchingResources: (input) => input.filter((n) => SERVICE_NAMES.includes(n)),
  matchesScope: () => false,
  usage(obj) {
    const spec = ((obj as { spec?: ServiceSpec }).spec ?? {}) as ServiceSpec;
    const ports = spec.ports ?? [];
    let nodePorts = 0;
    let loadBalancers = 0;
    if (spec.type === 'NodePort') nodePorts = ports.length;
    if (spec.type === 'LoadBalancer') {
      loadBalancers = 1;
      nodePorts = spec.allocateLoadBalancerNodePorts === false ? ports.filter((p) => (p.nodePort ?? 0) !== 0).length : ports.length;
    }
    return new Map([
      ['count/services', one()],
      ['services', one()],
      ['services.loadbalancers', count(loadBalancers)],
      ['services.nodeports', count(nodePorts)],
    ]);
  },
  constraints: () => undefined,
};

// ---- pods ----

interface PodObject extends KObject {
  spec?: PodSpecResources & { activeDeadlineSeconds?: number; priorityClassName?: string; containers?: ContainerSpec[] };
  status?: { phase?: string };
}

const POD_NAMES = ['pods', 'count/pods', 'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'limits.cpu', 'limits.memory', 'limits.ephemeral-storage'];
const POD_PREFIXES = ['hugepages-', 'requests.hugepages-'];
/** Quota on these requires every container to name the resource (a historical coupling kube keeps). */
const CONSTRAINED = ['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory'];

/** Extended resources are quota'd only as `requests.<domain>/<name>` (not kubernetes.io / requests.* built-ins). */
function isExtendedRequestName(n: string): boolean {
  if (!n.startsWith('requests.')) return false;
  const name = n.slice('requests.'.length);
  return name.includes('/') && !name.startsWith('kubernetes.io/') && !name.includes('.kubernetes.io/') && !name.startsWith('requests.');
}

/** podComputeUsageHelper: requests and limits into quota names. */
function computeUsage(requests: Map<string, Quantity>, limits: Map<string, Quantity>): Map<string, Quantity> {
  const out = new Map<string, Quantity>([['pods', one()]]);
  for (const r of ['cpu', 'memory', 'ephemeral-storage']) {
    const req = requests.get(r);
    if (req) {
      out.set(r, req);
      out.set(`requests.${r}`, req);
    }
    const lim = limits.get(r);
    if (lim) out.set(`limits.${r}`, lim);
  }
  for (const [r, q] of requests) {
    if (r.startsWith('hugepages-')) {
      out.set(r, q);
      out.set(`requests.${r}`, q);
    } else if (r.includes('/') && !r.startsWith('kubernetes.io/') && !r.includes('.kubernetes.io/')) {
      out.set(`requests.${r}`, q);
    }
  }
  return out;
}

function isBestEffort(spec: PodSpecResources): boolean {
  for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
    for (const list of [c.resources?.requests, c.resources?.limits]) {
      for (const [k, q] of parseList(list)) if ((k === 'cpu' || k === 'memory') && q.nanos !== 0n) return false;
    }
  }
  return true;
}

/** QuotaV1Pod: terminal pods, and pods past their deletion grace, no longer use compute quota. */
export function podCountsForCompute(pod: PodObject, now: Date): boolean {
  const phase = pod.status?.phase;
  if (phase === 'Failed' || phase === 'Succeeded') return false;
  const ts = pod.metadata.deletionTimestamp;
  const grace = pod.metadata.deletionGracePeriodSeconds;
  if (ts && grace !== undefined && grace !== null) {
    if (now.getTime() > Date.parse(ts) + grace * 1000) return false;
  }
  return true;
}

function podMatchesScope(scope: ScopeRequirement, obj: KObject): boolean {
  const pod = obj as PodObject;
  const spec = pod.spec ?? {};
  const terminating = spec.activeDeadlineSeconds !== undefined && spec.activeDeadlineSeconds !== null && spec.activeDeadlineSeconds >= 0;
  switch (scope.scopeName) {
    case 'Terminating':
      return terminating;
    case 'NotTerminating':
      return !terminating;
    case 'BestEffort':
      return isBestEffort(spec);
    case 'NotBestEffort':
      return !isBestEffort(spec);
    case 'PriorityClass': {
      const pc = spec.priorityClassName ?? '';
      if (scope.operator === 'Exists') return pc !== '';
      if (scope.operator === 'DoesNotExist') return pc === '';
      if (scope.operator === 'In') return (scope.values ?? []).includes(pc);
      if (scope.operator === 'NotIn') return !(scope.values ?? []).includes(pc);
      return false;
    }
    default:
      return false;
  }
}

export const podEvaluator: QuotaEvaluator = {
  group: '',
  resource: 'pods',
  handles: (op) => op === 'CREATE',
  matchingResources: (input) => input.filter((n) => POD_NAMES.includes(n) || POD_PREFIXES.some((p) => n.startsWith(p)) || isExtendedRequestName(n)),
  matchesScope: podMatchesScope,
  usage(obj, now) {
    const pod = obj as PodObject;
    const result = new Map<string, Quantity>([['count/pods', one()]]);
    if (!podCountsForCompute(pod, now)) return result;
    const spec = pod.spec ?? {};
    for (const [k, v] of computeUsage(podRequests(spec), podLimits(spec))) result.set(k, v);
    return result;
  },
  constraints(required, obj) {
    const requiredSet = required.filter((r) => CONSTRAINED.includes(r));
    if (requiredSet.length === 0) return undefined;
    const spec = (obj as PodObject).spec ?? {};
    const missing = new Map<string, Set<string>>();
    for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
      const usage = computeUsage(parseList(c.resources?.requests), parseList(c.resources?.limits));
      for (const r of requiredSet) {
        if (usage.has(r)) continue;
        if (!missing.has(r)) missing.set(r, new Set());
        missing.get(r)!.add(c.name ?? '');
      }
    }
    if (missing.size === 0) return undefined;
    const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...missing.get(r)!].sort().join(',')}`);
    return `must specify ${parts.join('; ')}`;
  },
};

const REGISTERED: QuotaEvaluator[] = [podEvaluator, serviceEvaluator];

/** The evaluator of a group/resource: pods and services have their own, everything else counts objects. */
export function evaluatorFor(group: string, resource: string): QuotaEvaluator {
  return REGISTERED.find((e) => e.group === group && e.resource === resource) ?? objectCountEvaluator(group, resource);
}

/** spec.scopes as Exists requirements, plus spec.scopeSelector's (getScopeSelectorsFromQuota). */
export function quotaScopes(q: ResourceQuotaObject): ScopeRequirement[] {
  const out: ScopeRequirement[] = (q.spec?.scopes ?? []).map((s) => ({ scopeName: s, operator: 'Exists' }));
  return [...out, ...(q.spec?.scopeSelector?.matchExpressions ?? [])];
}

/** generic.Matches: the quota tracks one of the evaluator's resources (in status.hard, or `hard` given) and every scope matches. */
export function quotaMatches(q: ResourceQuotaObject, obj: KObject, ev: QuotaEvaluator, hard: Record<string, string> | undefined = q.status?.hard): boolean {
  if (ev.matchingResources(Object.keys(hard ?? {})).length === 0) return false;
  return quotaScopes(q).every((s) => ev.matchesScope(s, obj));
}
