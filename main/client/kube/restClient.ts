// A small JSON REST client of the API server on one keep-alive agent, for
// everything generic — the informers' list and watch, status patches,
// bindings, events, the supervisor's readiness probes. Errors carry the API
// server's Status (code, reason, message) untouched. It needs nothing of
// client-node at run time (the KubeConfig is only a type here), so a program
// that only probes the API server (`pilothouse up`) does not load that
// library; rest.ts adds client-node's typed APIs for the controllers.

import { Agent, request as httpsRequest, type RequestOptions } from 'node:https';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { createInterface } from 'node:readline';
import type { KubeConfig } from '@kubernetes/client-node';

export interface KubeStatus {
  kind?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: Record<string, unknown>;
}

/** A non-2xx answer: `status` is the HTTP code, `body` the Status object when the server sent one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: KubeStatus,
  ) {
    super(body.message ?? `HTTP ${status}`);
    this.name = 'ApiError';
  }
  get reason(): string | undefined {
    return this.body.reason;
  }
}

export const isNotFound = (e: unknown): boolean => e instanceof ApiError && e.status === 404;
export const isConflict = (e: unknown): boolean => e instanceof ApiError && e.status === 409 && e.reason !== 'AlreadyExists';
export const isAlreadyExists = (e: unknown): boolean => e instanceof ApiError && e.status === 409 && e.reason === 'AlreadyExists';
export const isGone = (e: unknown): boolean => e instanceof ApiError && e.status === 410;

export type Query = Record<string, string | number | boolean | undefined>;

export type PatchType = 'merge' | 'strategic' | 'json' | 'apply';
const PATCH_CONTENT_TYPE: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  json: 'application/json-patch+json',
  apply: 'application/apply-patch+yaml',
};

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: Record<string, unknown>;
}

export interface WatchHandle {
  stop(): void;
  /** Resolves when the stream ends for any reason (error when it ended badly). */
  closed: Promise<Error | undefined>;
}

export class RestClient {
  private constructor(
    readonly server: URL,
    private readonly agent: Agent | undefined,
    private readonly userAgent: string,
    private token: string | undefined,
  ) {}

  /** Switches the Authorization header of every later request (a refreshed service-account token). */
  setBearerToken(token: string): void {
    this.token = `Bearer ${token}`;
  }

  /** A client of `server` with a client certificate (PEM), trusting `ca`. */
  static fromTls(server: string, tls: { ca: string | Buffer; cert: string | Buffer; key: string | Buffer }, userAgent: string): RestClient {
    const agent = new Agent({ keepAlive: true, ca: tls.ca, cert: tls.cert, key: tls.key, maxSockets: 64 });
    return new RestClient(new URL(server), agent, userAgent, undefined);
  }

  static async fromKubeConfig(kc: KubeConfig, userAgent: string): Promise<RestClient> {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    const opts: RequestOptions & { headers?: Record<string, string> } = {};
    await kc.applyToHTTPSOptions(opts);
    const server = new URL(cluster.server);
    const agent =
      server.protocol === 'https:'
        ? new Agent({ keepAlive: true, ca: opts.ca, cert: opts.cert, key: opts.key, rejectUnauthorized: opts.rejectUnauthorized, maxSockets: 64 })
        : undefined;
    const auth = opts.headers?.Authorization ?? opts.headers?.authorization;
    return new RestClient(server, agent, userAgent, auth);
  }

  private send(method: string, path: string, query: Query | undefined, headers: Record<string, string>, body?: string, signal?: AbortSignal): Promise<IncomingMessage> {
    const url = new URL(path, this.server);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const all: Record<string, string> = { Accept: 'application/json', 'User-Agent': this.userAgent, ...headers };
    if (this.token) all.Authorization = this.token;
    if (body !== undefined) all['Content-Length'] = String(Buffer.byteLength(body));
    const fn = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = fn(url, { method, headers: all, agent: this.agent, signal }, resolve);
      req.on('error', reject);
      req.end(body);
    });
  }

  /** One request; the parsed JSON body on 2xx, ApiError otherwise. */
  async request<T = Record<string, unknown>>(method: string, path: string, opts: { query?: Query; body?: unknown; contentType?: string; signal?: AbortSignal } = {}): Promise<T> {
    const payload = opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    const headers: Record<string, string> = payload === undefined ? {} : { 'Content-Type': opts.contentType ?? 'application/json' };
    const res = await this.send(method, path, opts.query, headers, payload, opts.signal);
    const chunks: Buffer[] = [];
    for await (const c of res) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      json = { message: text };
    }
    const code = res.statusCode ?? 0;
    if (code < 200 || code >= 300) throw new ApiError(code, json as KubeStatus);
    return json as T;
  }

  get<T = Record<string, unknown>>(path: string, query?: Query): Promise<T> {
    return this.request<T>('GET', path, { query });
  }
  create<T = Record<string, unknown>>(path: string, body: unknown, query?: Query): Promise<T> {
    return this.request<T>('POST', path, { body, query });
  }
  replace<T = Record<string, unknown>>(path: string, body: unknown, query?: Query): Promise<T> {
    return this.request<T>('PUT', path, { body, query });
  }
  patch<T = Record<string, unknown>>(path: string, type: PatchType, body: unknown, query?: Query): Promise<T> {
    return this.request<T>('PATCH', path, { body, contentType: PATCH_CONTENT_TYPE[type], query });
  }
  delete<T = Record<string, unknown>>(path: string, options?: Record<string, unknown>, query?: Query): Promise<T> {
    return this.request<T>('DELETE', path, { body: options, query });
  }

  /**
   * A watch stream (`?watch=true` added): each newline-terminated event goes
   * to onEvent. A non-200 answer closes it with an ApiError (410 included).
   */
  watch(path: string, query: Query, onEvent: (e: WatchEvent) => void): WatchHandle {
    const ctl = new AbortController();
    const closed = (async (): Promise<Error | undefined> => {
      let res: IncomingMessage;
      try {
        res = await this.send('GET', path, { ...query, watch: true }, {}, undefined, ctl.signal);
      } catch (e) {
        return ctl.signal.aborted ? undefined : (e as Error);
      }
      if (res.statusCode !== 200) {
        const chunks: Buffer[] = [];
        try {
          for await (const c of res) chunks.push(c as Buffer);
        } catch {
          /* closed while reading the error body */
        }
        let body: KubeStatus = {};
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as KubeStatus;
        } catch {
          /* not JSON */
        }
        return new ApiError(res.statusCode ?? 0, body);
      }
      const lines = createInterface({ input: res, crlfDelay: Infinity });
      try {
        for await (const line of lines) {
          if (!line.trim()) continue;
          let ev: WatchEvent;
          try {
            ev = JSON.parse(line) as WatchEvent;
          } catch {
            continue;
          }
          onEvent(ev);
        }
      } catch (e) {
        return ctl.signal.aborted ? undefined : (e as Error);
      }
      return undefined;
    })();
    return { stop: () => ctl.abort(), closed };
  }

  close(): void {
    this.agent?.destroy();
  }
}
