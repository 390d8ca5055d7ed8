// DIR/control.sock: how a tool acting on the plane (`pilothouse upgrade
// apply`) asks the process hosting it (`pilothouse up`) to run one component
// with another program or flags. The host owns its children, so the tool
// does not signal them itself; it asks, and the host's supervisor replaces
// the component, keeps supervising it and records the new command line
// (componentOverrides.ts).
//
// HTTP/1.1 over a unix socket, JSON bodies:
//   GET  /v1/components               every component: status, command line, the layout's
//   POST /v1/components/<id>/replace  {"program"?: {command, args, env?}, "args"?: [...]}
// Only the owner may connect: the socket is mode 0600 inside DIR (0700).
// Request bodies are bounded and every error is a JSON {"error": "..."}
// with a 4xx/5xx status; nothing a request sends can throw out of the handler.

import { chmodSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { ComponentStatus } from '../../preload/contract';
import type { CommandLine } from './componentOverrides';
import type { CommandLineChange } from './supervisedProcess';

export const CONTROL_SOCKET = 'control.sock';
const MAX_BODY = 64 * 1024;
/** sun_path holds 108 bytes with the terminating NUL. */
const MAX_SOCKET_PATH = 107;

export interface ControlledComponent extends ComponentStatus {
  commandLine: CommandLine;
  layout: CommandLine;
}

/** What the socket needs of the orchestrator. */
export interface ControlledPlane {
  components(): ComponentStatus[];
  commandLine(id: string): CommandLine;
  layoutCommandLine(id: string): CommandLine;
  has(id: string): boolean;
  replaceComponent(id: string, change: CommandLineChange): Promise<void>;
}

export function controlSocketPath(dataDir: string): string {
  return join(dataDir, CONTROL_SOCKET);
}

class BadRequest extends Error {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

function describe(plane: ControlledPlane, s: ComponentStatus): ControlledComponent {
  return { ...s, commandLine: plane.commandLine(s.id), layout: plane.layoutCommandLine(s.id) };
}

function strings(v: unknown, what: string): string[] {
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new BadRequest(`${what} must be an array of strings`);
  return v as string[];
}

/** The change a replace request asks for, checked field by field. */
export function parseChange(body: unknown): CommandLineChange {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new BadRequest('the body must be a JSON object');
  const b = body as Record<string, unknown>;
  const change: CommandLineChange = {};
  if (b.program !== undefined) {
    const p = b.program as Record<string, unknown>;
    if (typeof p !== 'object' || p === null || typeof p.command !== 'string' || p.command === '') throw new BadRequest('program.command must be a non-empty string');
    const env = p.env;
    if (env !== undefined && (typeof env !== 'object' || env === null || Object.values(env).some((x) => typeof x !== 'string'))) throw new BadRequest('program.env must map names to strings');
    change.program = { command: p.command, args: strings(p.args, 'program.args'), ...(env !== undefined && { env: env as Record<string, string> }) };
  }
  if (b.args !== undefined) change.args = strings(b.args, 'args');
  if (!change.program && !change.args) throw new BadRequest('nothing to replace: give program and/or args');
  return change;
}

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        // The rest is read and dropped, so the answer reaches the client.
        chunks.length = 0;
        reject(new BadRequest(`request body over ${MAX_BODY} bytes`, 413));
        return;
      }
      chunks.push(c);
    });
    req.on('error', reject);
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(text === '' ? {} : JSON.parse(text));
      } catch {
        reject(new BadRequest('the body is not JSON'));
      }
    });
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...(status === 413 && { connection: 'close' }) });
  res.end(text);
}

async function handle(plane: ControlledPlane, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?')[0]!;
  if (path === '/v1/components') {
    if (req.method !== 'GET') throw new BadRequest(`${req.method} not allowed on ${path}`, 405);
    send(res, 200, { components: plane.components().map((s) => describe(plane, s)) });
    return;
  }
  const m = /^\/v1\/components\/([A-Za-z0-9._-]{1,64})\/replace$/.exec(path);
  if (!m) throw new BadRequest(`no such endpoint: ${path}`, 404);
  if (req.method !== 'POST') throw new BadRequest(`${req.method} not allowed on ${path}`, 405);
  const id = m[1]!;
  if (!plane.has(id)) throw new BadRequest(`no component ${id}`, 404);
  const change = parseChange(await readBody(req));
  await plane.replaceComponent(id, change);
  const status = plane.components().find((c) => c.id === id)!;
  send(res, 200, { component: describe(plane, status) });
}

/** Serves DIR/control.sock for the plane until closed. Resolves once listening. */
export async function serveControlSocket(plane: ControlledPlane, dataDir: string): Promise<{ path: string; close(): Promise<void> }> {
  const path = controlSocketPath(dataDir);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) throw new Error(`${path} is longer than a unix socket path may be (${MAX_SOCKET_PATH} bytes)`);
  // The host holds DIR's pid file: a socket file left here is a dead host's.
  rmSync(path, { force: true });
  const server: Server = createServer((req, res) => {
    handle(plane, req, res).catch((err: unknown) => {
      const status = err instanceof BadRequest ? err.status : 500;
      send(res, status, { error: (err as Error).message ?? String(err) });
    });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 0; // a replace waits for a stop that may take the grace period
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
  chmodSync(path, 0o600);
  return {
    path,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          rmSync(path, { force: true });
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}
