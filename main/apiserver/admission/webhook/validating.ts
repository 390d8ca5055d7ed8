// The ValidatingAdmissionWebhook dispatcher (webhook/validating/dispatcher.go):
// every matching webhook is called at once; the request goes on only if all
// allow it. A failed call is skipped under failurePolicy Ignore (audit
// annotation `failed-open.validating.webhook.admission.k8s.io/round_0_index_I`)
// and refused under Fail (500); a denial answers the webhook's status. When
// several fail, kube returns one of them; here the first in webhook order,
// so the answer does not depend on which webhook was fastest.

import { internalError, StatusError } from '../../api/status';
import type { AdmissionAttributes } from '../interfaces';
import { CallingWebhookError, toStatusErr } from './errors';
import type { Webhook } from './hooks';
import { callHook, shouldCallHook, type DispatchDeps } from './invoke';

export async function dispatchValidating(hooks: Webhook[], attrs: AdmissionAttributes, deps: DispatchDeps): Promise<void> {
  // Matching is decided first, in order: a selector error refuses the request before any call.
  const relevant: { hook: Webhook; index: number }[] = [];
  for (let i = 0; i < hooks.length; i++) {
    if (await shouldCallHook(hooks[i]!, attrs, deps)) relevant.push({ hook: hooks[i]!, index: i });
  }
  if (relevant.length === 0) return;
  const outcomes = await Promise.all(
    relevant.map(async ({ hook, index }): Promise<StatusError | undefined> => {
      try {
        const result = await callHook(hook, attrs, false, deps);
        return result.allowed ? undefined : toStatusErr(hook.name, result.status);
      } catch (err) {
        if (err instanceof CallingWebhookError) {
          if (hook.failurePolicy === 'Ignore') {
            deps.log(`admission: failed calling webhook, failing open ${hook.name}: ${err.message}`);
            attrs.auditAnnotations[`failed-open.validating.webhook.admission.k8s.io/round_0_index_${index}`] = hook.name;
            return undefined;
          }
          deps.log(`admission: failed calling webhook, failing closed ${hook.name}: ${err.message}`);
          return err.toStatusError();
        }
        return err instanceof StatusError ? err : internalError(err);
      }
    }),
  );
  const first = outcomes.find((e) => e !== undefined);
  if (first) throw first;
}
