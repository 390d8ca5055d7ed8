// The MutatingAdmissionWebhook dispatcher (webhook/mutating/dispatcher.go):
// matching webhooks are called one at a time, in configuration-name order;
// each JSON Patch answer is applied to the object before the next call (then
// the resource's defaults run again, as kube re-defaults the decoded object).
//
// Failures: a call that fails is skipped under failurePolicy Ignore (audit
// annotation `failed-open.mutation.webhook.admission.k8s.io/round_R_index_I`)
// and refused under Fail (500 `Internal error occurred: failed calling
// webhook ...`); a denial answers the webhook's status; a patch that does not
// apply is a 500 whatever the policy.
//
// Reinvocation (reinvocationPolicy IfNeeded): when a later webhook changes
// the object, every earlier IfNeeded webhook is called once more in a second
// round — a webhook's own change never re-calls itself.
//
// Every call adds `mutation.webhook.admission.k8s.io/round_R_index_I`
// ({"configuration","webhook","mutated"}) and, when it patched,
// `patch.webhook.admission.k8s.io/round_R_index_I` (the patch) to the
// request's audit annotations.

import { internalError, StatusError } from '../../api/status';
import type { AdmissionAttributes } from '../interfaces';
import { deepEqual } from '../../api/validation/field';
import { applyJsonPatchOps, decodeJsonPatch, JsonPatchError } from '../../patch/jsonPatch';
import type { JsonValue } from '../../patch/jsonValue';
import { CallingWebhookError, toStatusErr } from './errors';
import type { Webhook } from './hooks';
import { callHook, shouldCallHook, type DispatchDeps } from './invoke';

type KObj = NonNullable<AdmissionAttributes['object']>;

/** Replaces obj's content in place: the REST handler keeps its own reference to the object. */
function replaceContent(obj: KObj, next: KObj): void {
  for (const k of Object.keys(obj)) delete (obj as Record<string, unknown>)[k];
  Object.assign(obj, next);
}

/** Applies one webhook's answer; true when the object changed. */
function applyPatch(hook: Webhook, attrs: AdmissionAttributes, patchText: string, round: number, index: number, deps: DispatchDeps): boolean {
  let ops;
  try {
    ops = decodeJsonPatch(patchText);
  } catch (err) {
    throw new CallingWebhookError(hook.name, `received undecodable patch in webhook response: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (ops.length === 0) return false;
  if (!attrs.object) throw internalError(`admission webhook "${hook.name}" attempted to modify the object, which is not supported for this operation`);
  let patched: KObj;
  try {
    patched = applyJsonPatchOps(attrs.object as unknown as JsonValue, ops) as unknown as KObj;
  } catch (err) {
    if (err instanceof JsonPatchError) throw internalError(err.detail);
    throw err;
  }
  if (typeof patched !== 'object' || patched === null || Array.isArray(patched) || typeof patched.metadata !== 'object') {
    throw internalError(`admission webhook "${hook.name}" returned a patch that does not leave an object`);
  }
  deps.defaults(attrs, patched);
  const changed = !deepEqual(attrs.object, patched);
  replaceContent(attrs.object, patched);
  attrs.auditAnnotations[`patch.webhook.admission.k8s.io/round_${round}_index_${index}`] = JSON.stringify({
    configuration: hook.configurationName,
    webhook: hook.name,
    patch: JSON.parse(patchText) as unknown,
    patchType: 'JSONPatch',
  });
  return changed;
}

/** Runs the mutating webhooks on attrs (attrs.object is changed in place). */
export async function dispatchMutating(hooks: Webhook[], attrs: AdmissionAttributes, deps: DispatchDeps): Promise<void> {
  let previouslyInvoked = new Set<string>();
  const reinvoke = new Set<string>();
  let anyChanged = false;

  const runRound = async (round: number): Promise<void> => {
    for (let i = 0; i < hooks.length; i++) {
      const hook = hooks[i]!;
      if (!(await shouldCallHook(hook, attrs, deps))) continue;
      // A webhook skipped in the first round is never called for the first time in the second.
      if (round === 1 && !reinvoke.has(hook.uid)) continue;
      let changed = false;
      let error: unknown;
      try {
        const result = await callHook(hook, attrs, true, deps);
        if (!result.allowed) throw toStatusErr(hook.name, result.status);
        if (result.patch) changed = applyPatch(hook, attrs, result.patch, round, i, deps);
      } catch (err) {
        error = err;
      }
      attrs.auditAnnotations[`mutation.webhook.admission.k8s.io/round_${round}_index_${i}`] = JSON.stringify({ configuration: hook.configurationName, webhook: hook.name, mutated: changed });
      if (changed) {
        anyChanged = true;
        for (const uid of previouslyInvoked) reinvoke.add(uid);
        previouslyInvoked = new Set();
      }
      if (hook.reinvocationPolicy === 'IfNeeded') previouslyInvoked.add(hook.uid);
      if (error === undefined) continue;
      if (error instanceof CallingWebhookError) {
        if (hook.failurePolicy === 'Ignore') {
          deps.log(`admission: failed calling webhook, failing open ${hook.name}: ${error.message}`);
          attrs.auditAnnotations[`failed-open.mutation.webhook.admission.k8s.io/round_${round}_index_${i}`] = hook.name;
          continue;
        }
        deps.log(`admission: failed calling webhook, failing closed ${hook.name}: ${error.message}`);
        throw error.toStatusError();
      }
      if (error instanceof StatusError) throw error;
      throw internalError(error);
    }
  };

  await runRound(0);
  if (anyChanged && reinvoke.size > 0) await runRound(1);
}
