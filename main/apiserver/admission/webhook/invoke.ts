// What both dispatchers share: deciding whether a webhook applies to a
// request (generic/webhook.go ShouldCallHook, in kube's order: namespace
// selector, object selector, rules, then matchConditions) and making one
// call (callHook: dry-run check, AdmissionReview, HTTPS, answer checks, then
// warnings and audit annotations onto the request).

import { forbidden, internalError, StatusError } from '../../api/status';
import type { AdmissionAttributes } from '../interfaces';
import type { ServerEnv } from '../../serverEnv';
import { CallError, postReview, unexpectedStatusText, type ServiceLookup } from './client';
import { CallingWebhookError, dryRunUnsupported } from './errors';
import type { Webhook } from './hooks';
import { evaluateMatchConditions } from './matchConditions';
import { anyRuleMatches, namespaceSelectorMatches, objectSelectorMatches, type NamespaceLabels } from './matching';
import { buildReview, InvalidResponseError, reviewVersion, verifyResponse, type AdmissionResponse } from './review';

export interface DispatchDeps {
  namespaceLabels: NamespaceLabels;
  services: ServiceLookup;
  /** Scheme defaults of the request's resource, re-applied after a patch (kube's ObjectDefaulter). */
  defaults(attrs: AdmissionAttributes, obj: NonNullable<AdmissionAttributes['object']>): void;
  log(line: string): void;
  /** The server's authorizer chain, for matchConditions that use `authorizer`. */
  authorize?: ServerEnv['authorize'];
}

/** ShouldCallHook: true to call; false to skip; throws a StatusError to refuse the request. */
export async function shouldCallHook(hook: Webhook, attrs: AdmissionAttributes, deps: DispatchDeps): Promise<boolean> {
  // kube evaluates the selectors first but reports their errors only for a webhook whose rules match.
  let nsErr: unknown;
  let nsMatch = true;
  if (hook.selectorError) nsErr = internalError(hook.selectorError);
  else {
    try {
      nsMatch = await namespaceSelectorMatches(hook, attrs, deps.namespaceLabels);
    } catch (err) {
      nsErr = err instanceof StatusError ? err : internalError(err);
    }
  }
  if (!nsMatch && nsErr === undefined) return false;
  if (!objectSelectorMatches(hook, attrs.object, attrs.oldObject)) return false;
  if (!anyRuleMatches(hook, attrs)) return false;
  if (nsErr !== undefined) throw nsErr;
  if (hook.matchConditions.length > 0) {
    const r = await evaluateMatchConditions(hook.matchConditions, attrs, hook.failurePolicy, deps.authorize);
    if ('error' in r) {
      deps.log(`admission: failed evaluating match conditions, failing closed ${hook.name}: ${r.error}`);
      throw forbidden({ group: attrs.group, resource: attrs.resource }, attrs.name, new CallingWebhookError(hook.name, r.error).message);
    }
    if (!r.matches) return false;
  }
  return true;
}

function statusMessage(body: string): string | undefined {
  try {
    const s = JSON.parse(body) as { kind?: unknown; message?: unknown };
    return s.kind === 'Status' && typeof s.message === 'string' ? s.message : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One call. Returns the verified answer (warnings and audit annotations
 * already applied to attrs); throws CallingWebhookError when the webhook
 * could not be asked or answered badly, a StatusError for a dry run it does
 * not support.
 */
export async function callHook(hook: Webhook, attrs: AdmissionAttributes, mutating: boolean, deps: DispatchDeps): Promise<AdmissionResponse> {
  if (attrs.dryRun) {
    if (hook.sideEffects === undefined) throw new CallingWebhookError(hook.name, 'Webhook SideEffects is nil');
    if (hook.sideEffects !== 'None' && hook.sideEffects !== 'NoneOnDryRun') throw dryRunUnsupported(hook.name);
  }
  const version = reviewVersion(hook.admissionReviewVersions);
  if (!version) throw new CallingWebhookError(hook.name, 'could not create admission objects: webhook does not accept known AdmissionReview versions');
  const { uid, body } = buildReview(attrs, version);
  let answer;
  try {
    answer = await postReview(hook.clientConfig, hook.timeoutSeconds, body, deps.services);
  } catch (err) {
    if (err instanceof CallError) throw new CallingWebhookError(hook.name, `failed to call webhook: ${err.message}`);
    throw err;
  }
  if (answer.status < 200 || answer.status > 299) {
    throw new CallingWebhookError(hook.name, `failed to call webhook: ${statusMessage(answer.body) ?? unexpectedStatusText(answer.status, answer.body)}`);
  }
  let decoded: unknown;
  try {
    decoded = JSON.parse(answer.body);
  } catch (err) {
    throw new CallingWebhookError(hook.name, `failed to call webhook: couldn't get version/kind; json parse error: ${(err as Error).message}`);
  }
  let result: AdmissionResponse;
  try {
    result = verifyResponse(uid, version, mutating, decoded);
  } catch (err) {
    if (err instanceof InvalidResponseError) throw new CallingWebhookError(hook.name, `received invalid webhook response: ${err.message}`);
    throw err;
  }
  // The webhook's audit annotations carry its name, so two webhooks cannot overwrite each other's keys.
  for (const [k, v] of Object.entries(result.auditAnnotations ?? {})) {
    const key = `${hook.name}/${k}`;
    if (!(key in attrs.auditAnnotations)) attrs.auditAnnotations[key] = v;
  }
  attrs.warnings.push(...(result.warnings ?? []));
  return result;
}
