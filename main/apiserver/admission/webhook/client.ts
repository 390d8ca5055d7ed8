// POSTs an AdmissionReview to a webhook over HTTPS, as kube's webhook REST
// client does (util/webhook/client.go + client-go rest): the caBundle is the
// only trusted CA (system roots when empty), the URL carries
// `?timeout=<N>s`, the call is bounded by timeoutSeconds, and every failure
// is reported in Go's words (`Post "<url>": <net error>`), because operators
// grep for those texts.
//
// Service references (`clientConfig.service`) are resolved as kube's default
// ClusterIP resolver does: the Service must exist (else `service "x" not
// found`) and the call would go to its cluster IP. Cluster IPs are virtual
// and nothing routes them on this host (no kube-proxy), so such a call fails
// like an unreachable host (`dial tcp <clusterIP>:<port>: connect: no route
// to host`) — never dialled. Use `clientConfig.url` for webhooks here.

import { request as httpsRequest, Agent } from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { ClientConfig } from './hooks';

export interface ServiceLookup {
  /** The Service's spec (type, clusterIP, ports, externalName), or undefined when it does not exist. */
  (namespace: string, name: string): Promise<Record<string, unknown> | undefined>;
}

export interface WebhookResponse {
  status: number;
  body: string;
}

/** Go's rendering of a failed call: the text after `failed to call webhook: `. */
export class CallError extends Error {}

// One keep-alive agent per CA bundle: webhooks are called on every matching request.
const agents = new Map<string, Agent>();
function agentFor(ca: string | undefined): Agent {
  const key = ca ?? '';
  let a = agents.get(key);
  if (!a) {
    a = new Agent({ keepAlive: true, maxSockets: 64, ...(ca ? { ca } : {}) });
    agents.set(key, a);
  }
  return a;
}

/** The webhook's URL with kube's timeout query parameter. */
export async function webhookUrl(cc: ClientConfig, timeoutSeconds: number, services: ServiceLookup): Promise<{ url: string; unreachable?: string }> {
  const q = `timeout=${timeoutSeconds}s`;
  if (cc.url) {
    const u = new URL(cc.url);
    u.search = q;
    return { url: u.toString() };
  }
  const svc = cc.service!;
  const path = svc.path ?? '';
  const url = `https://${svc.name}.${svc.namespace}.svc:${svc.port}${path}?${q}`;
  const spec = await services(svc.namespace, svc.name);
  if (!spec) return { url, unreachable: `service "${svc.name}" not found` };
  const type = typeof spec.type === 'string' ? spec.type : 'ClusterIP';
  if (type === 'ExternalName') return { url, unreachable: `dial tcp: lookup ${String(spec.externalName)}: no such host` };
  if (spec.clusterIP === 'None') return { url, unreachable: 'cannot route to service with ClusterIP "None"' };
  const ports = Array.isArray(spec.ports) ? (spec.ports as { port?: number }[]) : [];
  if (!ports.some((p) => p.port === svc.port)) return { url, unreachable: `no service port ${svc.port} found for service "${svc.name}"` };
  return { url, unreachable: `dial tcp ${String(spec.clusterIP)}:${svc.port}: connect: no route to host` };
}

function hostPort(url: URL): string {
  const port = url.port || '443';
  return `${url.hostname.replace(/^\[|\]$/g, '')}:${port}`;
}

/** Node's socket/TLS errors in Go's net/http + crypto/x509 wording. */
export function goNetError(err: NodeJS.ErrnoException & { cert?: { subjectaltname?: string } }, url: URL): string {
  const hp = hostPort(url);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  switch (err.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${hp}: connect: connection refused`;
    case 'EHOSTUNREACH':
      return `dial tcp ${hp}: connect: no route to host`;
    case 'ENETUNREACH':
      return `dial tcp ${hp}: connect: network is unreachable`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `dial tcp: lookup ${host}: no such host`;
    case 'ECONNRESET':
      return 'EOF';
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
    case 'UNABLE_TO_GET_ISSUER_CERT':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'CERT_HAS_EXPIRED':
    case 'CERT_NOT_YET_VALID':
      return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    case 'ERR_TLS_CERT_ALTNAME_INVALID': {
      const names = (err.cert?.subjectaltname ?? '')
        .split(/,\s*/)
        .map((s) => s.replace(/^(DNS|IP Address):/, ''))
        .filter(Boolean);
      return `tls: failed to verify certificate: x509: certificate is valid for ${names.join(', ')}, not ${host}`;
    }
    default:
      return err.message;
  }
}

/** NewGenericServerResponse's texts for a non-2xx answer that is not a Status. */
export function unexpectedStatusText(code: number, body: string): string {
  switch (code) {
    case 400:
      return 'the server rejected our request for an unknown reason';
    case 401:
      return 'the server has asked for the client to provide credentials';
    case 403:
      return 'the server does not allow access to the requested resource';
    case 404:
      return 'the server could not find the requested resource';
    case 405:
      return 'the server does not allow this method on the requested resource';
    case 409:
      return 'the server reported a conflict';
    case 413:
      return 'the server has rejected the request because the request entity is too large';
    case 422:
      return 'the server rejected our request due to an error in our request';
    case 429:
      return 'the server has received too many requests and has asked us to try again later';
    case 503:
      return 'the server is currently unable to handle the request';
    case 504:
      return 'the server was unable to return a response in the time allotted, but may still be processing the request';
    default:
      if (code >= 500) return `an error on the server (${JSON.stringify(body.trim() || 'unknown')}) has prevented the request from succeeding`;
      return `unknown (${code})`;
  }
}

/**
 * One POST. Resolves with the raw answer; rejects with a CallError whose
 * message is Go's `Post "<url>": <cause>` text.
 */
export async function postReview(cc: ClientConfig, timeoutSeconds: number, body: string, services: ServiceLookup): Promise<WebhookResponse> {
  const { url, unreachable } = await webhookUrl(cc, timeoutSeconds, services);
  if (unreachable) throw new CallError(`Post "${url}": ${unreachable}`);
  const u = new URL(url);
  return new Promise<WebhookResponse>((resolve, reject) => {
    let settled = false;
    const fail = (cause: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new CallError(`Post "${url}": ${cause}`));
    };
    const req = httpsRequest(
      u,
      {
        method: 'POST',
        agent: agentFor(cc.caBundle),
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, */*', 'Content-Length': Buffer.byteLength(body), 'User-Agent': 'kube-apiserver-admission' },
      },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', (err) => fail(goNetError(err, u)));
      },
    );
    // The whole exchange (connect, TLS, answer) shares one deadline, as kube's context.WithTimeout does.
    const timer = setTimeout(() => {
      fail('context deadline exceeded');
      req.destroy();
    }, timeoutSeconds * 1000);
    req.on('error', (err) => fail(goNetError(err as NodeJS.ErrnoException, u)));
    req.end(body);
  });
}
