// Pod Security admission's decisions (pod-security-admission/admission):
// which requests it judges, against which namespace policy, and what it
// answers — a denial, warnings, audit annotations. Three kinds of request:
//   - namespaces: the labels must parse (422 otherwise); raising the
//     enforce level warns about existing pods that would now be refused;
//   - pods: enforce, audit and warn all apply (updates only when something
//     checked can have changed: images, containers, ephemeral containers);
//   - workloads with a pod template (Deployments, Jobs, ...): audit and warn
//     only, so a bad template is reported at once and refused when its pods
//     are created.
// Kept free of the server: the namespace and pod reads come in as functions.

import type { KObject } from '../../../kube/object';
import { fieldErrorBody, forbidden, internalError, invalid, type FieldError, type StatusError } from '../../api/status';
import type { AdmissionAttributes } from '../interfaces';
import {
  AUDIT_LEVEL_LABEL,
  AUDIT_VERSION_LABEL,
  AUDIT_VIOLATIONS_ANNOTATION,
  compareLevels,
  ENFORCE_LEVEL_LABEL,
  ENFORCE_VERSION_LABEL,
  ENFORCED_POLICY_ANNOTATION,
  equivalentPolicy,
  EXEMPTION_REASON_ANNOTATION,
  fullyPrivileged,
  levelVersionString,
  policyToEvaluate,
  PRIVILEGED_LATEST,
  sameLevelVersion,
  sameVersion,
  WARN_LEVEL_LABEL,
  WARN_VERSION_LABEL,
  type LevelVersion,
  type Policy,
} from './api';
import type { PodSecurityConfiguration } from './config';
import { SECCOMP_CONTAINER_ANNOTATION_PREFIX } from './checksBaseline';
import type { Container, PodMetadata, PodSpec } from './podSpec';
import { aggregateCheckResults, forbiddenDetail, forbiddenReason, type AggregateCheckResult, type Evaluator } from './registry';

export interface PodSecurityResponse {
  allowed: boolean;
  /** The error to return when not allowed. */
  status?: StatusError;
  warnings: string[];
  /** Keys without the `pod-security.kubernetes.io/` prefix (the plugin adds it). */
  auditAnnotations: Record<string, string>;
}

export interface PodSecurityDeps {
  config: PodSecurityConfiguration;
  defaultPolicy: Policy;
  evaluator: Evaluator;
  /** The namespace object, undefined when it does not exist; throws on a read failure. */
  getNamespace(name: string): Promise<KObject | undefined>;
  listPods(namespace: string): Promise<KObject[]>;
  /** Milliseconds clock for the existing-pods check's time budget. */
  nowMs?: () => number;
}

/** At most this many existing pods, for at most this long, are checked when a namespace's enforce level rises. */
export const NAMESPACE_MAX_PODS_TO_CHECK = 3000;
export const NAMESPACE_POD_CHECK_TIMEOUT_MS = 1000;

/** Pod subresources that cannot change what the checks read; any other (ephemeralcontainers, resize) is judged. */
const IGNORED_POD_SUBRESOURCES = new Set(['exec', 'attach', 'binding', 'eviction', 'log', 'portforward', 'proxy', 'status']);

/**
 * Resources carrying a pod template, and where it sits (kube's
 * DefaultPodSpecExtractor). Only a ReplicationController's template is
 * optional (a pointer); the others are embedded structs, empty when absent.
 */
const POD_TEMPLATE_PATHS: Record<string, { path: string[]; optional?: boolean }> = {
  '/replicationcontrollers': { path: ['spec', 'template'], optional: true },
  '/podtemplates': { path: ['template'] },
  'apps/replicasets': { path: ['spec', 'template'] },
  'apps/deployments': { path: ['spec', 'template'] },
  'apps/statefulsets': { path: ['spec', 'template'] },
  'apps/daemonsets': { path: ['spec', 'template'] },
  'batch/jobs': { path: ['spec', 'template'] },
  'batch/cronjobs': { path: ['spec', 'jobTemplate', 'spec', 'template'] },
};

export function judgesResource(group: string, resource: string): boolean {
  return (group === '' && (resource === 'pods' || resource === 'namespaces')) || `${group}/${resource}` in POD_TEMPLATE_PATHS;
}

const allowed = (auditAnnotations: Record<string, string> = {}): PodSecurityResponse => ({ allowed: true, warnings: [], auditAnnotations });

function aggregateFieldErrors(errs: FieldError[]): string {
  const parts = errs.map((e) => `${e.field}: ${fieldErrorBody(e)}`);
  return parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
}

export class PodSecurityAdmission {
  constructor(private readonly deps: PodSecurityDeps) {}

  async validate(a: AdmissionAttributes): Promise<PodSecurityResponse> {
    if (a.operation !== 'CREATE' && a.operation !== 'UPDATE') return allowed();
    if (a.group === '' && a.resource === 'namespaces') return this.validateNamespace(a);
    if (a.group === '' && a.resource === 'pods') return this.validatePod(a);
    if (`${a.group}/${a.resource}` in POD_TEMPLATE_PATHS) return this.validatePodController(a);
    return allowed();
  }

  policyFor(labels: Record<string, string> | undefined): { policy: Policy; errors: FieldError[] } {
    return policyToEvaluate(labels, this.deps.defaultPolicy);
  }

  private async validateNamespace(a: AdmissionAttributes): Promise<PodSecurityResponse> {
    if (a.subresource !== '' || !a.object) return allowed();
    const ns = a.object;
    const { policy: newPolicy, errors: newErrs } = this.policyFor(ns.metadata.labels);
    const name = ns.metadata.name ?? a.name;
    const exemptWarning = (): PodSecurityResponse => {
      const w = this.exemptNamespaceWarning(name, newPolicy, ns.metadata.labels ?? {});
      return { ...allowed(), warnings: w ? [w] : [] };
    };
    if (a.operation === 'CREATE') {
      if (newErrs.length > 0) return { allowed: false, status: invalid({ group: '', kind: 'Namespace' }, a.name, newErrs), warnings: [], auditAnnotations: {} };
      return this.exemptNamespace(a.namespace) ? exemptWarning() : allowed();
    }
    const { policy: oldPolicy, errors: oldErrs } = this.policyFor(a.oldObject?.metadata.labels);
    // Labels that were already invalid the same way do not block unrelated updates.
    if (newErrs.length > 0 && (oldErrs.length === 0 || JSON.stringify(newErrs) !== JSON.stringify(oldErrs))) {
      return { allowed: false, status: invalid({ group: '', kind: 'Namespace' }, a.name, newErrs), warnings: [], auditAnnotations: {} };
    }
    // Existing pods are only dry-run when the enforce level got stricter (or its version changed).
    if (sameLevelVersion(newPolicy.enforce, oldPolicy.enforce)) return allowed();
    if (newPolicy.enforce.level === 'privileged') return allowed();
    if (sameVersion(newPolicy.enforce.version, oldPolicy.enforce.version) && compareLevels(newPolicy.enforce.level, oldPolicy.enforce.level) < 1) return allowed();
    if (this.exemptNamespace(a.namespace)) return exemptWarning();
    return { ...allowed(), warnings: await this.evaluatePodsInNamespace(name, newPolicy.enforce) };
  }

  private async validatePod(a: AdmissionAttributes): Promise<PodSecurityResponse> {
    if (IGNORED_POD_SUBRESOURCES.has(a.subresource)) return allowed();
    const exempt = this.exemption(a);
    if (exempt) return exempt;
    let ns: KObject | undefined;
    try {
      ns = await this.deps.getNamespace(a.namespace);
      if (!ns) throw new Error(`namespace "${a.namespace}" not found`);
    } catch (err) {
      const status = internalError(new Error(`failed to lookup namespace "${a.namespace}"`));
      return { allowed: false, status, warnings: [], auditAnnotations: { error: `${status.status.message}: ${(err as Error).message}` } };
    }
    const { policy, errors } = this.policyFor(ns.metadata.labels);
    if (errors.length === 0 && fullyPrivileged(policy)) return allowed({ [ENFORCED_POLICY_ANNOTATION]: levelVersionString(PRIVILEGED_LATEST) });
    if (!a.object) return allowed();
    if (a.operation === 'UPDATE' && a.oldObject && !isSignificantPodUpdate(a.object, a.oldObject)) return allowed();
    const pod = a.object as KObject & { spec?: PodSpec };
    return this.evaluatePod(policy, errors, pod.metadata as PodMetadata, pod.spec ?? {}, a, true);
  }

  private async validatePodController(a: AdmissionAttributes): Promise<PodSecurityResponse> {
    if (a.subresource !== '') return allowed();
    const exempt = this.exemption(a);
    if (exempt) return exempt;
    let ns: KObject | undefined;
    try {
      ns = await this.deps.getNamespace(a.namespace);
      if (!ns) throw new Error(`namespace "${a.namespace}" not found`);
    } catch (err) {
      // Workloads are never refused by Pod Security: a lookup failure is only audited.
      return allowed({ error: `failed to lookup namespace "${a.namespace}": ${(err as Error).message}` });
    }
    const { policy, errors } = this.policyFor(ns.metadata.labels);
    if (errors.length === 0 && policy.warn.level === 'privileged' && policy.audit.level === 'privileged') return allowed();
    const template = podTemplateOf(a.object, POD_TEMPLATE_PATHS[`${a.group}/${a.resource}`]);
    if (!template) return allowed();
    return this.evaluatePod(policy, errors, template.metadata ?? {}, template.spec ?? {}, a, false);
  }

  /** EvaluatePod: enforce (pods only), then audit, then warn — each level:version evaluated once. */
  private evaluatePod(policy: Policy, policyErrors: FieldError[], meta: PodMetadata, spec: PodSpec, a: AdmissionAttributes, enforce: boolean): PodSecurityResponse {
    if (this.exemptRuntimeClass(spec.runtimeClassName)) return allowed({ [EXEMPTION_REASON_ANNOTATION]: 'runtimeClass' });
    const response: PodSecurityResponse = allowed();
    if (policyErrors.length > 0) response.auditAnnotations.error = `Failed to parse policy: ${aggregateFieldErrors(policyErrors)}`;
    const cache = new Map<string, AggregateCheckResult>();
    const evaluate = (lv: LevelVersion): AggregateCheckResult => {
      const key = levelVersionString(lv);
      let r = cache.get(key);
      if (!r) cache.set(key, (r = aggregateCheckResults(this.deps.evaluator.evaluatePod(lv, meta, spec))));
      return r;
    };
    if (enforce) {
      response.auditAnnotations[ENFORCED_POLICY_ANNOTATION] = levelVersionString(policy.enforce);
      const r = evaluate(policy.enforce);
      if (!r.allowed) {
        response.allowed = false;
        response.status = forbidden({ group: a.group, resource: a.resource }, a.name, `violates PodSecurity "${levelVersionString(policy.enforce)}": ${forbiddenDetail(r)}`);
      }
    }
    const audit = evaluate(policy.audit);
    if (!audit.allowed) response.auditAnnotations[AUDIT_VIOLATIONS_ANNOTATION] = `would violate PodSecurity "${levelVersionString(policy.audit)}": ${forbiddenDetail(audit)}`;
    // No warnings on a request that is refused anyway.
    if (response.allowed) {
      const warn = evaluate(policy.warn);
      if (!warn.allowed) response.warnings.push(`would violate PodSecurity "${levelVersionString(policy.warn)}": ${forbiddenDetail(warn)}`);
    }
    return response;
  }

  /** The warnings for a namespace whose enforce level rose: one line per distinct set of violations, naming a pod. */
  async evaluatePodsInNamespace(namespace: string, enforce: LevelVersion): Promise<string[]> {
    const now = this.deps.nowMs ?? Date.now;
    const deadline = now() + NAMESPACE_POD_CHECK_TIMEOUT_MS;
    let pods: KObject[];
    try {
      pods = await this.deps.listPods(namespace);
    } catch {
      return ['failed to list pods while checking new PodSecurity enforce level'];
    }
    const prioritized = this.prioritizePods(pods);
    const total = prioritized.length;
    const toCheck = prioritized.slice(0, NAMESPACE_MAX_PODS_TO_CHECK);
    let checked = toCheck.length;
    const byWarning = new Map<string, { podName: string; count: number }>();
    for (let i = 0; i < toCheck.length; i++) {
      const pod = toCheck[i] as KObject & { spec?: PodSpec };
      const r = aggregateCheckResults(this.deps.evaluator.evaluatePod(enforce, pod.metadata as PodMetadata, pod.spec ?? {}));
      if (!r.allowed) {
        const warning = forbiddenReason(r);
        const name = pod.metadata.name ?? '';
        const seen = byWarning.get(warning);
        if (!seen) byWarning.set(warning, { podName: name, count: 1 });
        else {
          seen.count++;
          if (name < seen.podName) seen.podName = name;
        }
      }
      if (now() > deadline) {
        checked = i + 1;
        break;
      }
    }
    const warnings: string[] = [];
    if (checked < total) warnings.push(`new PodSecurity enforce level only checked against the first ${checked} of ${total} existing pods`);
    if (byWarning.size > 0) warnings.push(`existing pods in namespace "${namespace}" violate the new PodSecurity enforce level "${levelVersionString(enforce)}"`);
    const podWarnings = [...byWarning].map(([warning, c]) =>
      c.count === 1 ? `${c.podName}: ${warning}` : c.count === 2 ? `${c.podName} (and 1 other pod): ${warning}` : `${c.podName} (and ${c.count - 1} other pods): ${warning}`,
    );
    return [...warnings, ...podWarnings.sort()];
  }

  /** Pods of exempt runtime classes are skipped; one pod per controller first, its replicas after all others. */
  private prioritizePods(pods: KObject[]): KObject[] {
    const first: KObject[] = [];
    const duplicates: KObject[] = [];
    const seenControllers = new Set<string>();
    for (const pod of pods) {
      if (this.exemptRuntimeClass((pod as { spec?: PodSpec }).spec?.runtimeClassName)) continue;
      const owner = (pod.metadata.ownerReferences ?? []).find((r) => (r as { controller?: boolean }).controller === true) as { uid?: string } | undefined;
      if (!owner) first.push(pod);
      else if (seenControllers.has(owner.uid ?? '')) duplicates.push(pod);
      else {
        first.push(pod);
        seenControllers.add(owner.uid ?? '');
      }
    }
    return [...first, ...duplicates];
  }

  private exemption(a: AdmissionAttributes): PodSecurityResponse | undefined {
    if (this.exemptNamespace(a.namespace)) return allowed({ [EXEMPTION_REASON_ANNOTATION]: 'namespace' });
    if (a.user.username && this.deps.config.exemptions.usernames.includes(a.user.username)) return allowed({ [EXEMPTION_REASON_ANNOTATION]: 'user' });
    return undefined;
  }

  private exemptNamespace(ns: string): boolean {
    return ns !== '' && this.deps.config.exemptions.namespaces.includes(ns);
  }

  private exemptRuntimeClass(rc: string | null | undefined): boolean {
    return !!rc && this.deps.config.exemptions.runtimeClasses.includes(rc);
  }

  /** Labels on an exempt namespace do nothing; say so unless they ask for nothing beyond the defaults. */
  private exemptNamespaceWarning(ns: string, policy: Policy, labels: Record<string, string>): string {
    if (fullyPrivileged(policy) || equivalentPolicy(policy, this.deps.defaultPolicy)) return '';
    const parts: string[] = [];
    const modes = [
      ['enforce', ENFORCE_LEVEL_LABEL, ENFORCE_VERSION_LABEL],
      ['audit', AUDIT_LEVEL_LABEL, AUDIT_VERSION_LABEL],
      ['warn', WARN_LEVEL_LABEL, WARN_VERSION_LABEL],
    ] as const;
    for (const [mode, levelLabel, versionLabel] of modes) {
      if (policy[mode].level !== 'privileged' && (levelLabel in labels || versionLabel in labels)) parts.push(`${mode}=${levelVersionString(policy[mode])}`);
    }
    return `namespace "${ns}" is exempt from Pod Security, and the policy (${parts.join(', ')}) will be ignored`;
  }
}

function podTemplateOf(obj: KObject | undefined, where: { path: string[]; optional?: boolean }): { metadata?: PodMetadata; spec?: PodSpec } | undefined {
  let cur: unknown = obj;
  for (const key of where.path) cur = cur == null ? undefined : (cur as Record<string, unknown>)[key];
  if (cur == null) return where.optional ? undefined : {};
  return cur as { metadata?: PodMetadata; spec?: PodSpec };
}

/**
 * isSignificantPodUpdate: after creation a pod's checked fields can only
 * change through container images, the number of (init) containers, added
 * or changed ephemeral containers, and the legacy per-container seccomp
 * annotations; any other update (labels, status, tolerations) is let through.
 */
export function isSignificantPodUpdate(pod: KObject, oldPod: KObject): boolean {
  const spec = ((pod as { spec?: PodSpec }).spec ?? {}) as PodSpec;
  const oldSpec = ((oldPod as { spec?: PodSpec }).spec ?? {}) as PodSpec;
  const ann = pod.metadata.annotations ?? {};
  const oldAnn = oldPod.metadata.annotations ?? {};
  const changed = (c: Container, old: Container): boolean =>
    c.image !== old.image || ann[SECCOMP_CONTAINER_ANNOTATION_PREFIX + c.name] !== oldAnn[SECCOMP_CONTAINER_ANNOTATION_PREFIX + c.name];
  const containers = spec.containers ?? [];
  const oldContainers = oldSpec.containers ?? [];
  const inits = spec.initContainers ?? [];
  const oldInits = oldSpec.initContainers ?? [];
  if (containers.length !== oldContainers.length || inits.length !== oldInits.length) return true;
  if (containers.some((c, i) => changed(c, oldContainers[i]))) return true;
  if (inits.some((c, i) => changed(c, oldInits[i]))) return true;
  const oldEphemeral = oldSpec.ephemeralContainers ?? [];
  for (const c of spec.ephemeralContainers ?? []) {
    const old = oldEphemeral.find((o) => o.name === c.name);
    if (!old || changed(c, old)) return true;
  }
  return false;
}
