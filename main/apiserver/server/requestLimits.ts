// kube-apiserver's generic serving limits as the handler chain applies them
// (--request-timeout, --max-requests-inflight,
// --max-mutating-requests-inflight; options/serverRun.ts parses them).

export interface RequestLimits {
  requestTimeoutMs: number;
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
}

export const DEFAULT_REQUEST_LIMITS: RequestLimits = { requestTimeoutMs: 60_000, maxRequestsInflight: 400, maxMutatingRequestsInflight: 200 };
