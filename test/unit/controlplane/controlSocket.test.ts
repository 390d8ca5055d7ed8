import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ComponentStatus } from '../../../preload/contract';
import type { CommandLine } from '../../../main/controlplane/componentOverrides';
import { parseChange, serveControlSocket, type ControlledPlane } from '../../../main/controlplane/controlSocket';
import { socketControl } from '../../../main/upgrade/planeControl';

function fakePlane(): ControlledPlane & { lines: Map<string, CommandLine> } {
  const lines = new Map<string, CommandLine>([['m1', { program: { command: 'node', args: ['a/cli.js', 'etcd'] }, args: ['--name', 'm1'] }]]);
  const layout = new Map(lines);
  return {
    lines,
    components: (): ComponentStatus[] => [{ id: 'm1', kind: 'etcd', state: 'running', restarts: 0, pid: 4242 }],
    commandLine: (id) => lines.get(id)!,
    layoutCommandLine: (id) => layout.get(id)!,
    has: (id) => lines.has(id),
    replaceComponent: async (id, change) => {
      const now = lines.get(id)!;
      lines.set(id, { program: change.program ?? now.program, args: change.args ?? now.args });
    },
  };
}

function raw(socketPath: string, method: string, path: string, body?: string): Promise<{ status: number; json: { error?: string } }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, method, path }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(Buffer.concat(chunks).toString()) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('control socket', () => {
  let dir: string;
  let server: { path: string; close(): Promise<void> };
  const plane = fakePlane();
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ctl-'));
    server = await serveControlSocket(plane, dir);
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is a 0600 socket in DIR', () => {
    const st = statSync(server.path);
    expect(st.isSocket()).toBe(true);
    expect(st.mode & 0o777).toBe(0o600);
  });

  it('lists components with their command lines, and replaces one', async () => {
    const ctl = socketControl(dir);
    const [m1] = await ctl.components();
    expect(m1).toMatchObject({ id: 'm1', pid: 4242, commandLine: { args: ['--name', 'm1'] }, layout: { args: ['--name', 'm1'] } });
    const after = await ctl.replace('m1', { program: { command: 'node', args: ['b/cli.js', 'etcd'] } });
    expect(after.commandLine.program.args).toEqual(['b/cli.js', 'etcd']);
    expect(after.commandLine.args).toEqual(['--name', 'm1']);
  });

  it('answers bad requests with a JSON error and keeps serving', async () => {
    expect(await raw(server.path, 'POST', '/v1/components/m1/replace', '{not json')).toEqual({ status: 400, json: { error: 'the body is not JSON' } });
    expect((await raw(server.path, 'POST', '/v1/components/m1/replace', JSON.stringify({ args: [1] }))).json.error).toBe('args must be an array of strings');
    expect((await raw(server.path, 'POST', '/v1/components/m9/replace', '{"args":[]}')).status).toBe(404);
    expect((await raw(server.path, 'GET', '/v1/components/m1/replace')).status).toBe(405);
    expect((await raw(server.path, 'POST', '/v1/components/m1/replace', 'x'.repeat(70_000))).status).toBe(413);
    expect((await raw(server.path, 'GET', '/nope')).status).toBe(404);
    expect((await raw(server.path, 'GET', '/v1/components')).status).toBe(200);
  });

  it('parses a change field by field', () => {
    expect(() => parseChange({})).toThrow(/nothing to replace/);
    expect(() => parseChange({ program: { command: '' } })).toThrow(/program.command/);
    expect(parseChange({ program: { command: 'n', args: ['x'], env: { A: '1' } } })).toEqual({ program: { command: 'n', args: ['x'], env: { A: '1' } } });
  });
});
