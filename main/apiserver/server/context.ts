// What every filter and handler of the chain sees for one request: the raw
// request/response, the parsed RequestInfo, the authenticated user, the
// request's trace and the warnings to send back as `Warning: 299` headers.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { UserInfo } from '../authn/user';
import type { RequestInfo } from './requestInfo';
import type { RequestTarget } from './requestTarget';
import type { TraceRecorder } from './traceRecorder';

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  /** The parsed request target (requestTarget.ts). */
  url: RequestTarget;
  /** Set by withRequestInfo. */
  info: RequestInfo;
  /** Set by withAuthentication; replaced by the impersonated user when the request impersonates. */
  user?: UserInfo;
  /**
   * Set by the impersonation filter: the authenticated user who is acting as
   * `user`. kube's audit event writes this one as `user` and `user` as
   * `impersonatedUser`.
   */
  impersonatedBy?: UserInfo;
  trace: TraceRecorder;
  /** Texts for `Warning: 299 - "<text>"` headers (kube's warning recorder). */
  warnings: string[];
  /** Audit annotations added while serving (authorization decision, admission plugins); the audit log writes them. */
  auditAnnotations: Record<string, string>;
  /** Aborted when the client goes away (watches stop on it). */
  signal: AbortSignal;
  /** Set by the audit filter when it keeps the request body: each chunk readBody reads. */
  bodyTap?: (chunk: Buffer) => void;
  /**
   * The metadata of the object a create or update sent, once decoded (kube's
   * LogRequestObject completes the audit event's objectRef from it).
   */
  requestObjectMeta?: { namespace?: string; name?: string; uid?: string; resourceVersion?: string };
}

export type Handler = (ctx: RequestContext) => Promise<void>;

/** A filter does its part and calls next() to pass the request on (or answers itself). */
export type Filter = (ctx: RequestContext, next: () => Promise<void>) => Promise<void>;

export interface NamedFilter {
  name: string;
  run: Filter;
}
