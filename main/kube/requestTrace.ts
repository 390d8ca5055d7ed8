// The per-request trace: who asked, what for, what each stage of the handler
// chain decided and how long it took, and what storage did. Every request
// makes one; the last N are kept in a bounded ring buffer (RequestTraceLog)
// and streamed at /debug/pilothouse/traces for the console's admission log.
// The authentication, authorization and admission filters fill in their stages.

export type StageVerdict = 'allow' | 'deny' | 'mutate' | 'skip' | 'error' | 'ok';

export interface TraceStage {
  /** 'authentication', 'authorization', 'admission:mutating:LimitRanger', 'validation', 'storage', ... */
  stage: string;
  verdict: StageVerdict;
  reason?: string;
  /** JSON Patch (RFC 6902) operations a mutating stage applied. */
  patch?: unknown[];
  latencyMs: number;
}

export interface RequestTrace {
  id: string;
  /** ISO time the request arrived. */
  receivedAt: string;
  user?: { username: string; groups: string[] };
  verb: string;
  method: string;
  path: string;
  apiGroup?: string;
  apiVersion?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  stages: TraceStage[];
  /** Final HTTP status code and, on failure, the Status reason and message. */
  code?: number;
  reason?: string;
  message?: string;
  /** The resourceVersion the storage layer returned (writes) or served (reads). */
  resourceVersion?: string;
  /** 'created' | 'updated' | 'unchanged' | 'deleted' | 'read' | ... */
  storageResult?: string;
  latencyMs?: number;
  /** 'allowed' when every stage passed; 'denied' when authn/authz/admission/validation refused. */
  decision?: 'allowed' | 'denied' | 'error';
}
