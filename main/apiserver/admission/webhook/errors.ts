// The two ways a webhook call goes wrong, as k8s.io/apiserver's
// util/webhook/error.go and admission/plugin/webhook/errors tell them apart:
//  - CallingWebhookError: the webhook could not be asked or answered
//    nonsense. failurePolicy decides: Ignore goes on, Fail answers 500
//    `Internal error occurred: failed calling webhook "x": <reason>`.
//  - a rejection: the webhook answered allowed=false; its status becomes the
//    response (`admission webhook "x" denied the request: <message>`, code at
//    least 400) whatever the failurePolicy.

import { type Status, type StatusReason, StatusError, failure, internalError } from '../../api/status';

export class CallingWebhookError extends Error {
  constructor(
    readonly webhookName: string,
    /** Go's wrapped error text, e.g. `failed to call webhook: Post "https://...": context deadline exceeded`. */
    readonly reason: string,
  ) {
    super(reason ? `failed calling webhook "${webhookName}": ${reason}` : `failed calling webhook "${webhookName}"; no further details available`);
    this.name = 'CallingWebhookError';
  }

  /** What failurePolicy Fail answers: apierrors.NewInternalError(err). */
  toStatusError(): StatusError {
    return internalError(this);
  }
}

/** The webhook's `response.status` (a metav1.Status, possibly partial). */
export interface WebhookResultStatus {
  code?: number;
  message?: string;
  reason?: string;
  status?: string;
  details?: Status['details'];
}

/** webhookerrors.ToStatusErr: the rejection the client sees. */
export function toStatusErr(webhookName: string, result: WebhookResultStatus | undefined): StatusError {
  const deniedBy = `admission webhook "${webhookName}" denied the request`;
  const r = result ?? {};
  const code = typeof r.code === 'number' && r.code >= 400 ? r.code : 400;
  let message: string;
  if (r.message) message = `${deniedBy}: ${r.message}`;
  else if (r.reason) message = `${deniedBy}: ${r.reason}`;
  else message = `${deniedBy} without explanation`;
  const err = failure(code, (r.reason ?? '') as StatusReason, message, r.details);
  // Go omits an empty reason, and kubectl then prints "Error from server: <message>".
  if (!r.reason) delete err.status.reason;
  return err;
}

/** webhookerrors.NewDryRunUnsupportedErr. */
export function dryRunUnsupported(webhookName: string): StatusError {
  return failure(400, 'BadRequest', `admission webhook "${webhookName}" does not support dry run`);
}
