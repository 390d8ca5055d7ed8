// The session with stand-in services: which services it creates, starts and
// disposes on a switch, the lab's claim on DIR/controlplane.pid, events of
// services no longer shown dropped, and every request checked.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BridgeEventName, ClusterHandlers, EventSink } from '../../../preload/contract';
import { ConsoleSessions, type SessionTarget } from '../../../main/console/consoleSessions';

const dir = mkdtempSync(join(tmpdir(), 'sessions-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ca = join(dir, 'ca.crt');
writeFileSync(ca, 'x');

function setup(opts: { claimFails?: boolean } = {}) {
  const log: string[] = [];
  const seen: [BridgeEventName, unknown][] = [];
  const sinks: EventSink[] = [];
  const sessions = new ConsoleSessions({
    dataDir: dir,
    events: { emit: (e, p) => void seen.push([e, p]) },
    create: (t: SessionTarget) => {
      log.push(`create ${t.connection.name} ${t.attach ? 'attached' : 'lab'} ${t.dataDir.slice(dir.length) || '/'}`);
      sinks.push(t.events);
      return {
        handlers: { version: () => ({ pilothouse: t.connection.name, commit: '', runtime: 'web', versions: {} }) } as unknown as ClusterHandlers,
        start: async () => void log.push(`start ${t.connection.name}`),
        dispose: async () => void log.push(`dispose ${t.connection.name}`),
      };
    },
    hostPlane: () => {
      if (opts.claimFails) throw new Error('controlplane.pid names pid 1, which is running');
      log.push('claim');
      return () => void log.push('release');
    },
  });
  return { sessions, log, seen, sinks, h: sessions.handlers };
}

describe('ConsoleSessions', () => {
  it('starts on the lab, switches to a saved connection and back: dispose before create, the claim held only while the lab is shown', async () => {
    const { sessions, log, seen, sinks, h } = setup();
    sessions.open();
    await sessions.start();
    expect(await h.currentCluster()).toEqual({ id: 'lab', name: 'lab (embedded)', mode: 'embedded', writable: true });
    const saved = await h.saveConnection({ name: 'prod', etcd: { endpoints: ['https://127.0.0.1:2379'], cacert: ca }, writable: false });
    expect((await h.listConnections()).connections.map((c) => [c.id, c.kind])).toEqual([['lab', 'lab'], [saved.id, 'etcd']]);

    expect(await h.switchCluster({ id: saved.id })).toEqual({ id: saved.id, name: 'prod', mode: 'external', writable: false });
    expect((await h.version()).pilothouse).toBe('prod');
    // the lab's services, disposed, no longer reach the page
    sinks[0]!.emit('logLines', []);
    sinks[1]!.emit('logLines', []);
    expect(seen.map(([e]) => e)).toEqual(['clusterSwitched', 'logLines']);
    expect(await h.switchCluster({ id: saved.id })).toMatchObject({ id: saved.id }); // already shown: nothing happens
    await expect(Promise.resolve().then(() => h.deleteConnection({ id: saved.id }))).rejects.toThrow('the connection shown now cannot be deleted');

    await h.switchCluster({ id: 'lab' });
    await sessions.dispose();
    expect(log).toEqual([
      'claim', 'create lab (embedded) lab /', 'start lab (embedded)',
      'dispose lab (embedded)', 'release', `create prod attached /connections/${saved.id}`, `start prod`,
      'dispose prod', 'claim', 'create lab (embedded) lab /', 'start lab (embedded)',
      'dispose lab (embedded)', 'release',
    ]);
    expect(await h.deleteConnection({ id: saved.id })).toEqual({ deleted: true });
  });

  it('opened on an attachment: saved as a connection of its name, no claim; a lab whose DIR is taken leaves the attachment shown', async () => {
    const { sessions, log, h } = setup({ claimFails: true });
    sessions.open({ name: 'etcd 127.0.0.1:2379', etcd: { endpoints: ['127.0.0.1:2379'] }, writable: true });
    const cur = await h.currentCluster();
    expect(cur).toMatchObject({ name: 'etcd 127.0.0.1:2379', mode: 'external', writable: true });
    await expect(Promise.resolve().then(() => h.switchCluster({ id: 'lab' }))).rejects.toThrow('controlplane.pid names pid 1');
    expect(await h.currentCluster()).toEqual(cur);
    expect(log.filter((l) => l.startsWith('create'))).toEqual([`create etcd 127.0.0.1:2379 attached /connections/${cur.id}`, `create etcd 127.0.0.1:2379 attached /connections/${cur.id}`]);
    await sessions.dispose();
    // the same attachment again: the same connection
    const again = setup();
    again.sessions.open({ name: 'etcd 127.0.0.1:2379', etcd: { endpoints: ['127.0.0.1:2379'] }, writable: false });
    expect((await again.h.currentCluster()).id).toBe(cur.id);
    await again.sessions.dispose();
  });

  it("a lab whose DIR is another host's is refused at open", () => {
    expect(() => setup({ claimFails: true }).sessions.open()).toThrow('controlplane.pid names pid 1, which is running');
  });

  const refused = [
    { name: 'switch to an unknown id', call: 'switchCluster', req: { id: 'c-nope' }, want: 'no connection c-nope' },
    { name: 'switch without an id', call: 'switchCluster', req: {}, want: 'switch.id must be a connection id' },
    { name: 'switch with an extra field', call: 'switchCluster', req: { id: 'lab', force: true }, want: 'switch.force: no such field' },
    { name: 'delete the lab', call: 'deleteConnection', req: { id: 'lab' }, want: 'the embedded lab is not a saved connection' },
    { name: 'save over an unknown id', call: 'saveConnection', req: { id: 'c-x', name: 'x', etcd: { endpoints: ['h:1'] }, writable: false }, want: 'no connection c-x' },
    { name: 'save without writable', call: 'saveConnection', req: { name: 'x', etcd: { endpoints: ['h:1'] } }, want: 'connection.writable must be true or false' },
    { name: 'import from nowhere', call: 'importConnections', req: { from: 'etcdctl-env', path: join(dir, 'none.env') }, want: 'none.env: no such file' },
  ] as const;
  for (const c of refused) {
    it(`refuses to ${c.name}`, async () => {
      const { sessions, h } = setup();
      sessions.open();
      const fn = h[c.call] as (r: unknown) => unknown;
      await expect(Promise.resolve().then(() => fn(c.req))).rejects.toThrow(c.want);
      await sessions.dispose();
    });
  }

  it('imports an etcdctl.env file and kubeconfig contexts (KUBECONFIG, skipping a missing file)', async () => {
    const env = join(dir, 'etcdctl.env');
    writeFileSync(env, `export ETCDCTL_ENDPOINTS=https://127.0.0.1:2379\nexport ETCDCTL_CACERT=${ca}\n`);
    const kc = join(dir, 'kubeconfig');
    writeFileSync(kc, 'apiVersion: v1\nkind: Config\ncurrent-context: a\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: a, context: {cluster: c, user: u}}, {name: b, context: {cluster: c, user: u}}]\n');
    const sessions = new ConsoleSessions({ dataDir: dir, events: { emit: () => {} }, create: () => ({ handlers: {} as ClusterHandlers, start: async () => {}, dispose: async () => {} }), env: { KUBECONFIG: `${join(dir, 'gone')}:${kc}` }, home: dir });
    sessions.open();
    expect(await sessions.handlers.importConnections({ from: 'etcdctl-env' })).toEqual({ source: env, drafts: [{ name: 'etcd 127.0.0.1:2379', etcd: { endpoints: ['https://127.0.0.1:2379'], cacert: ca }, writable: false }] });
    const k = await sessions.handlers.importConnections({ from: 'kubeconfig' });
    expect(k).toEqual({ source: kc, currentContext: 'a', drafts: [{ name: 'a', kube: { kubeconfig: kc, context: 'a' }, writable: false }, { name: 'b', kube: { kubeconfig: kc, context: 'b' }, writable: false }] });
    await sessions.dispose();
  });
});
