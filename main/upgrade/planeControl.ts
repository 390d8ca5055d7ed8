// How an upgrade reaches the plane it changes: the components (their
// status and command lines) and one operation, replace a component's program
// and/or flags. Two ways to the same orchestrator:
//   - socketControl: the `pilothouse up` hosting DIR, through DIR/control.sock
//     (the CLI runs in another process);
//   - supervisorControl: a Supervisor in this process (the console's plane, a
//     rehearsal's scratch plane).
// What the components say about their health is not asked here: the upgrade
// asks the members over the etcd API and the API server over HTTPS, as it
// would any cluster (applyPlane.ts).

import { request } from 'node:http';
import { existsSync } from 'node:fs';
import type { ControlledComponent, ControlledPlane } from '../controlplane/controlSocket';
import { controlSocketPath } from '../controlplane/controlSocket';
import type { CommandLineChange } from '../controlplane/supervisedProcess';

export interface PlaneControl {
  components(): Promise<ControlledComponent[]>;
  /** Resolves once the component runs the new command line (spawned; not yet healthy). */
  replace(id: string, change: CommandLineChange): Promise<ControlledComponent>;
}

export function supervisorControl(plane: ControlledPlane): PlaneControl {
  const describe = (id: string): ControlledComponent => {
    const s = plane.components().find((c) => c.id === id);
    if (!s) throw new Error(`no component ${id}`);
    return { ...s, commandLine: plane.commandLine(id), layout: plane.layoutCommandLine(id) };
  };
  return {
    components: () => Promise.resolve(plane.components().map((c) => describe(c.id))),
    replace: async (id, change) => {
      await plane.replaceComponent(id, change);
      return describe(id);
    },
  };
}

function call<T>(socketPath: string, method: string, path: string, body?: unknown, timeoutMs = 60_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      { socketPath, method, path, headers: payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}, timeout: timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          let json: { error?: string } & Record<string, unknown>;
          try {
            json = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof json;
          } catch {
            reject(new Error(`${socketPath}: ${method} ${path} answered ${res.statusCode} with a body that is not JSON`));
            return;
          }
          if ((res.statusCode ?? 500) >= 300) reject(new Error(`${socketPath}: ${json.error ?? `HTTP ${res.statusCode}`}`));
          else resolve(json as T);
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${socketPath}: ${method} ${path} had no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** The `pilothouse up` hosting dataDir, through its control socket; throws when it serves none. */
export function socketControl(dataDir: string): PlaneControl {
  const path = controlSocketPath(dataDir);
  if (!existsSync(path)) throw new Error(`${path} does not exist: no \`pilothouse up\` with a control socket hosts ${dataDir} (a plane the console hosts is upgraded from the console)`);
  return {
    components: async () => (await call<{ components: ControlledComponent[] }>(path, 'GET', '/v1/components')).components,
    replace: async (id, change) => (await call<{ component: ControlledComponent }>(path, 'POST', `/v1/components/${encodeURIComponent(id)}/replace`, change)).component,
  };
}
