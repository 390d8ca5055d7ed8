// `pilothouse example-webhook`: the seed's example admission webhook — "every
// Pod must carry team=backend" — as a small HTTPS server speaking
// AdmissionReview (admission.k8s.io/v1, or v1beta1 when asked in it):
//   POST /mutate     adds the label when it is missing (a JSON Patch, the
//                    label key escaped per RFC 6901: `/` → `~1`, `~` → `~0`)
//   POST /validate   denies objects that lack the required label
//                    (--deny-label KEY, default the --label key) with 403
//   POST /slow/N     waits N ms (at most 60 s), then allows: for timeouts
//                    (also /slow?ms=N; but kube refuses query parameters in a
//                    webhook's clientConfig.url, so configurations use /slow/N)
//   GET  /healthz    ok
// It prints one line when it serves: `example-webhook: serving on https://...`.
//
//   pilothouse example-webhook --tls-cert-file tls.crt --tls-private-key-file tls.key \
//     [--port 8443] [--bind-address 127.0.0.1] [--label team=backend] [--deny-label team] [--warning TEXT] [--audit-annotation K=V]

import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvalidArgumentError, type Command } from 'commander';

export interface ExampleWebhookOptions {
  cert: string;
  key: string;
  port: number;
  bindAddress: string;
  /** The label /mutate adds, e.g. ['team', 'backend']. */
  label: [string, string];
  /** The label key /validate requires (default: label[0]). */
  denyLabel?: string;
  /** A warning every /mutate and /validate answer carries (kubectl prints it as `Warning: ...`). */
  warning?: string;
  /** An audit annotation every answer carries (kube stores it as `<webhook name>/<key>`). */
  auditAnnotation?: [string, string];
}

export interface RunningExampleWebhook {
  port: number;
  url: string;
  close(): Promise<void>;
}

type Review = { apiVersion?: string; request?: { uid?: string; kind?: { kind?: string }; name?: string; namespace?: string; operation?: string; object?: { metadata?: { name?: string; generateName?: string; labels?: Record<string, string> } } | null } };

/** RFC 6901: a label key such as `app.kubernetes.io/team` becomes `app.kubernetes.io~1team`. */
export function escapePointerToken(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The JSON Patch that adds label key=value to an object with these labels, or undefined when it carries the key already. */
export function labelPatch(labels: Record<string, string> | undefined, key: string, value: string): object[] | undefined {
  if (labels && Object.prototype.hasOwnProperty.call(labels, key)) return undefined;
  if (!labels) return [{ op: 'add', path: '/metadata/labels', value: { [key]: value } }];
  return [{ op: 'add', path: `/metadata/labels/${escapePointerToken(key)}`, value }];
}

interface Extras {
  warning?: string;
  auditAnnotation?: [string, string];
}

function answer(res: ServerResponse, review: Review, response: Record<string, unknown>, extras: Extras = {}): void {
  const r: Record<string, unknown> = { uid: review.request?.uid ?? '', ...response };
  if (extras.warning) r.warnings = [extras.warning];
  if (extras.auditAnnotation) r.auditAnnotations = { [extras.auditAnnotation[0]]: extras.auditAnnotation[1] };
  const body = JSON.stringify({ apiVersion: review.apiVersion ?? 'admission.k8s.io/v1', kind: 'AdmissionReview', response: r });
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function describe(review: Review): string {
  const r = review.request ?? {};
  const meta = r.object?.metadata ?? {};
  const name = meta.name || r.name || (meta.generateName ? `${meta.generateName}*` : '');
  const kind = (r.kind?.kind ?? 'object').toLowerCase();
  return r.namespace ? `${kind} "${name}" in namespace "${r.namespace}"` : `${kind} "${name}"`;
}

function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        reject(new Error('request body too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const MAX_SLOW_MS = 60_000;

export async function startExampleWebhook(o: ExampleWebhookOptions): Promise<RunningExampleWebhook> {
  const [labelKey, labelValue] = o.label;
  const requiredKey = o.denyLabel ?? labelKey;
  const pending = new Set<NodeJS.Timeout>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'https://webhook');
    if (req.method === 'GET' && url.pathname === '/healthz') {
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
      return;
    }
    const slow = /^\/slow(?:\/(\d+))?$/.exec(url.pathname);
    if (req.method !== 'POST' || !(url.pathname === '/mutate' || url.pathname === '/validate' || slow)) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('404 page not found\n');
      return;
    }
    let review: Review;
    try {
      review = JSON.parse(await readBody(req, 3 * 1024 * 1024)) as Review;
    } catch (err) {
      res.writeHead(400, { 'Content-Type': 'text/plain' }).end(`bad AdmissionReview: ${err instanceof Error ? err.message : String(err)}\n`);
      return;
    }
    const obj = review.request?.object;
    if (slow) {
      const ms = Math.min(Math.max(Number(slow[1] ?? url.searchParams.get('ms') ?? '0') || 0, 0), MAX_SLOW_MS);
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => {
          pending.delete(t);
          resolve();
        }, ms);
        pending.add(t);
        // The caller gave up (its deadline passed): stop waiting for it.
        res.once('close', () => {
          clearTimeout(t);
          pending.delete(t);
          resolve();
        });
      });
      if (!res.writableEnded && !res.destroyed) answer(res, review, { allowed: true });
      return;
    }
    if (url.pathname === '/mutate') {
      const patch = obj ? labelPatch(obj.metadata?.labels, labelKey, labelValue) : undefined;
      if (!patch) answer(res, review, { allowed: true }, o);
      else answer(res, review, { allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') }, o);
      return;
    }
    // /validate: objects being written must carry the label (deletes have no object and pass).
    if (obj && !Object.prototype.hasOwnProperty.call(obj.metadata?.labels ?? {}, requiredKey)) {
      answer(res, review, { allowed: false, status: { code: 403, message: `${describe(review)} lacks the required label "${requiredKey}"` } }, o);
      return;
    }
    answer(res, review, { allowed: true }, o);
  };

  const server: Server = createServer({ cert: readFileSync(o.cert), key: readFileSync(o.key) }, (req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end(`${err instanceof Error ? err.message : String(err)}\n`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.bindAddress, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = o.bindAddress.includes(':') ? `[${o.bindAddress}]` : o.bindAddress;
  return {
    port,
    url: `https://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of pending) clearTimeout(t);
        pending.clear();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function parseLabel(v: string): [string, string] {
  const eq = v.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError('must be KEY=VALUE');
  return [v.slice(0, eq), v.slice(eq + 1)];
}

function parsePort(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n > 65535) throw new InvalidArgumentError('must be an integer in 0..65535');
  return n;
}

export function registerExampleWebhookCommand(program: Command, setExitCode: (code: number) => void): void {
  program
    .command('example-webhook')
    .description('the example admission webhook: /mutate adds a label (team=backend) when missing, /validate denies objects without it, /slow/N (or /slow?ms=N) waits N ms')
    .requiredOption('--tls-cert-file <file>', 'serving certificate (PEM)')
    .requiredOption('--tls-private-key-file <file>', 'serving key (PEM)')
    .option('--port <port>', 'HTTPS port (0 picks a free one)', parsePort, 8443)
    .option('--bind-address <ip>', 'address to listen on', '127.0.0.1')
    .option('--label <key=value>', 'the label /mutate adds', parseLabel, ['team', 'backend'] as [string, string])
    .option('--deny-label <key>', 'the label key /validate requires (default: the --label key)')
    .option('--warning <text>', 'a warning every /mutate and /validate answer carries')
    .option('--audit-annotation <key=value>', 'an audit annotation every /mutate and /validate answer carries', parseLabel)
    .action(async (flags: { tlsCertFile: string; tlsPrivateKeyFile: string; port: number; bindAddress: string; label: [string, string]; denyLabel?: string; warning?: string; auditAnnotation?: [string, string] }) => {
      const hook = await startExampleWebhook({
        cert: flags.tlsCertFile,
        key: flags.tlsPrivateKeyFile,
        port: flags.port,
        bindAddress: flags.bindAddress,
        label: flags.label,
        denyLabel: flags.denyLabel,
        warning: flags.warning,
        auditAnnotation: flags.auditAnnotation,
      });
      process.stdout.write(`example-webhook: serving on ${hook.url} (/mutate adds ${flags.label[0]}=${flags.label[1]}, /validate requires ${flags.denyLabel ?? flags.label[0]}, /slow/N waits N ms)\n`);
      await new Promise<void>((resolve) => {
        const stop = () => void hook.close().then(resolve);
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      setExitCode(0);
    });
}
