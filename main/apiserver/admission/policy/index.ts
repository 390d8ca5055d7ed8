// The ValidatingAdmissionPolicy admission plugin (validating phase), as
// k8s.io/apiserver plugin/policy/validating dispatcher.go decides:
//
//   for each policy with at least one binding whose matchConstraints match:
//     for each binding of it whose matchResources match:
//       for each param (paramKind + paramRef; one null param without them):
//         evaluate (./validator.ts) and apply the binding's validationActions:
//           Deny  → the first denial is the request's error
//           Warn  → "Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': msg"
//           Audit → the validation.policy.admission.k8s.io/validation_failure annotation
//   configuration errors (unknown paramKind, missing params with Deny) follow failurePolicy.
//
// The denial is admission.NewForbidden re-reasoned: `deployments.apps "web" is
// forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request:
// failed expression: object.spec.replicas <= 5`, reason from the validation
// (Invalid → 422 by default), the message repeated as a cause.
//
// Policies and bindings are read from their watch caches on each request (a
// range over the cache, no etcd round trip); compiled expressions are cached
// per policy uid and generation.

import { failure, StatusError, type StatusReason } from '../../api/status';
import type { KObject } from '../../../kube/object';
import { admissionRequest, namespaceObject } from '../celInputs';
import { AUTHZ_ROUNDS, authorizerValue, newAuthzContext, resolvePendingChecks } from '../../cel';
import type { AdmissionAttributes, AdmissionPlugin } from '../interfaces';
import type { ResourceDef } from '../../registry/rest/resourceDef';
import { type Rec, recOpt, str } from '../../registry/common/obj';
import type { ServerEnv } from '../../serverEnv';
import { StorageError } from '../../storage/interface';
import { admissionForbidden } from '../errors/forbidden';
import { compilePolicy, type CompiledPolicy } from './compilePolicy';
import { matchResources } from './matching';
import { collectParams, resolveParamKind } from './params';
import { validate, type ValidateInput, type ValidateResult } from './validator';

const GROUP = 'admissionregistration.k8s.io';
const VALIDATION_FAILURE_KEY = 'validation.policy.admission.k8s.io/validation_failure';
const MAX_AUDIT_ANNOTATION_VALUE = 10 * 1024;

interface Denial {
  policy: string;
  binding?: string;
  message: string;
  reason: string;
}

interface ValidationFailure {
  message: string;
  policy: string;
  binding: string;
  expressionIndex: number;
  validationActions: string[];
}

interface PolicyEntry {
  generation: number;
  compiled: CompiledPolicy;
  /** The served resource of spec.paramKind, or the configuration error resolving it. */
  paramDef?: ResourceDef;
  paramError?: string;
}

function reasonToCode(reason: string): number {
  switch (reason) {
    case 'Forbidden':
      return 403;
    case 'Unauthorized':
      return 401;
    case 'RequestEntityTooLarge':
      return 413;
    default:
      return 422;
  }
}

function denialError(a: AdmissionAttributes, d: Denial): StatusError {
  const message = d.binding
    ? `ValidatingAdmissionPolicy '${d.policy}' with binding '${d.binding}' denied request: ${d.message}`
    : `ValidatingAdmissionPolicy '${d.policy}' denied request: ${d.message}`;
  const base = admissionForbidden(a, message).status;
  const reason = d.reason || 'Invalid';
  return failure(reasonToCode(reason), reason as StatusReason, base.message ?? message, { ...base.details, causes: [{ message }] });
}

const nameOf = (o: KObject): string => o.metadata.name ?? '';

function errorText(e: unknown): string {
  if (e instanceof StatusError) return e.status.message ?? e.message;
  return e instanceof Error ? e.message : String(e);
}

export function validatingAdmissionPolicyPlugin(env: ServerEnv): AdmissionPlugin {
  const cache = new Map<string, PolicyEntry>();

  const defOf = (resource: string): ResourceDef | undefined => env.resources().find((d) => d.group === GROUP && d.resource === resource);

  async function list(resource: string): Promise<KObject[]> {
    const def = defOf(resource);
    if (!def) return [];
    const r = await env.storageFor(resource, GROUP).getList(`${env.etcdPrefix}/${def.storagePrefix}/`, { resourceVersion: '0', shareItems: true });
    return r.items;
  }

  function entryFor(policy: KObject): PolicyEntry {
    const key = policy.metadata.uid ?? nameOf(policy);
    const generation = policy.metadata.generation ?? 0;
    const hit = cache.get(key);
    if (hit && hit.generation === generation) return hit;
    const spec = recOpt(policy as Rec, 'spec');
    const entry: PolicyEntry = { generation, compiled: compilePolicy(spec) };
    const pk = recOpt(spec, 'paramKind');
    if (pk) {
      try {
        entry.paramDef = resolveParamKind(env, pk);
      } catch (e) {
        entry.paramError = errorText(e);
      }
    }
    cache.set(key, entry);
    return entry;
  }

  async function getNamespace(name: string): Promise<KObject> {
    try {
      return await env.storageFor('namespaces').get(env.keyFor('namespaces', '', '', name), { resourceVersion: '0', shareObject: true });
    } catch (e) {
      if (e instanceof StorageError && e.code === 'KeyNotFound') throw failure(404, 'NotFound', `namespaces "${name}" not found`, { name, kind: 'namespaces' });
      throw e;
    }
  }

  return {
    name: 'ValidatingAdmissionPolicy',
    async validate(a) {
      const [policies, bindings] = await Promise.all([list('validatingadmissionpolicies'), list('validatingadmissionpolicybindings')]);
      if (policies.length === 0 || bindings.length === 0) return;
      const byPolicy = new Map<string, KObject[]>();
      for (const b of bindings) {
        const p = str(recOpt(b as Rec, 'spec'), 'policyName');
        byPolicy.set(p, [...(byPolicy.get(p) ?? []), b]);
      }
      // One namespace read per request, shared by selectors and namespaceObject.
      const namespaces = new Map<string, Promise<KObject>>();
      const ns = (name: string): Promise<KObject> => {
        let p = namespaces.get(name);
        if (!p) namespaces.set(name, (p = getNamespace(name)));
        return p;
      };

      const denials: Denial[] = [];
      const failures: ValidationFailure[] = [];
      const configError = (policy: KObject, failurePolicy: string, err: string, binding?: KObject): void => {
        if (failurePolicy === 'Ignore') return;
        const message = failurePolicy === 'Fail' ? `${binding ? 'failed to configure binding' : 'failed to configure policy'}: ${err}` : `unrecognized failure policy: '${failurePolicy}'`;
        denials.push({ policy: nameOf(policy), binding: binding ? nameOf(binding) : undefined, message, reason: '' });
      };
      let request: Record<string, unknown> | undefined;
      // The authorizer library answers checks from decisions learnt between evaluation rounds.
      const authz = newAuthzContext(a.user);
      // The CEL variables are built when an expression first reads them (ValidateInput's getters).
      let authorizer: ReturnType<typeof authorizerValue> | undefined;
      const authorizerMap = (): Map<string, unknown> =>
        (authorizer ??= authorizerValue(authz, { group: a.group, version: a.version, resource: a.resource, subresource: a.subresource, namespace: a.namespace, name: a.name })).value;
      const evaluate = async (compiled: CompiledPolicy, failurePolicy: string, input: ValidateInput): Promise<ValidateResult> => {
        for (let round = 1; ; round++) {
          const result = validate(compiled, failurePolicy, input);
          if (authz.pending.size === 0 || round >= AUTHZ_ROUNDS) return result;
          await resolvePendingChecks(authz, env.authorize);
        }
      };
      try {
        for (const policy of policies) {
          const policyBindings = byPolicy.get(nameOf(policy));
          if (!policyBindings) continue;
          const spec = recOpt(policy as Rec, 'spec');
          const failurePolicy = str(spec, 'failurePolicy') || 'Fail';
          const constraints = recOpt(spec, 'matchConstraints');
          try {
            if (!constraints) throw new Error('policy contained no match constraints, a required field');
            if (!(await matchResources(constraints, a, ns))) continue;
          } catch (e) {
            configError(policy, failurePolicy, errorText(e));
            continue;
          }
          const entry = entryFor(policy);
          if (entry.paramError) {
            configError(policy, failurePolicy, entry.paramError);
            continue;
          }
          const annotations = new Map<string, string[]>();
          for (const binding of policyBindings) {
            const bspec = recOpt(binding as Rec, 'spec');
            let params: (KObject | null)[];
            try {
              const mr = recOpt(bspec, 'matchResources');
              if (mr && !(await matchResources(mr, a, ns))) continue;
              params = await collectParams(env, entry.paramDef, recOpt(bspec, 'paramRef'), a.namespace);
            } catch (e) {
              configError(policy, failurePolicy, errorText(e), binding);
              continue;
            }
            if (params.length === 0) continue;
            // The namespace object of a namespaced request (a Namespace's own request has none).
            const nsName = a.group === '' && a.kind === 'Namespace' ? '' : a.namespace;
            const nsStored = nsName ? await ns(nsName) : null;
            let nsObject: Record<string, unknown> | null | undefined;
            const actions = Array.isArray(bspec?.validationActions) ? (bspec!.validationActions as unknown[]).map(String) : [];
            for (const param of params) {
              const result = await evaluate(entry.compiled, failurePolicy, {
                object: a.object,
                oldObject: a.oldObject,
                params: param,
                get request() {
                  return (request ??= admissionRequest(a));
                },
                get namespaceObject() {
                  return nsObject === undefined ? (nsObject = namespaceObject(nsStored)) : nsObject;
                },
                get authorizer() {
                  return authorizerMap();
                },
              });
              result.decisions.forEach((d, i) => {
                if (d.action !== 'deny') return;
                for (const action of actions) {
                  if (action === 'Deny') denials.push({ policy: nameOf(policy), binding: nameOf(binding), message: d.message, reason: d.reason });
                  else if (action === 'Audit') failures.push({ message: d.message, policy: str(bspec, 'policyName'), binding: nameOf(binding), expressionIndex: i, validationActions: actions });
                  else if (action === 'Warn') a.warnings.push(`Validation failed for ValidatingAdmissionPolicy '${nameOf(policy)}' with binding '${nameOf(binding)}': ${d.message}`);
                }
              });
              for (const an of result.auditAnnotations) {
                if (an.action === 'publish') {
                  const values = annotations.get(an.key) ?? [];
                  const value = an.value.slice(0, MAX_AUDIT_ANNOTATION_VALUE);
                  if (!values.includes(value)) values.push(value);
                  annotations.set(an.key, values);
                } else if (an.action === 'error') {
                  denials.push({ policy: nameOf(policy), binding: nameOf(binding), message: an.message, reason: '' });
                }
              }
            }
          }
          for (const [key, values] of annotations) a.auditAnnotations[`${nameOf(policy)}/${key}`] = values.join(', ');
        }
      } finally {
        authorizer?.release();
      }

      if (failures.length > 0) a.auditAnnotations[VALIDATION_FAILURE_KEY] = JSON.stringify(failures);
      if (denials.length > 0) throw denialError(a, denials[0]!);
    },
  };
}

export { compilePolicy } from './compilePolicy';
