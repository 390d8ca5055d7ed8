// `pilothouse apiserver --etcd-client-transport=grpc-js` (ports 21500–21509):
// the API server on @grpc/grpc-js instead of its own HTTP/2 client serves
// kubectl 1.32 — writes (Txn), reads and lists from the watch caches (one
// etcd watch stream per resource), a watch — and what it wrote is in etcd.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reapApiServers, startTestApiServer, type TestApiServer } from '../../support/apiserver';

const PORT_BASE = 21500;

let api: TestApiServer;

async function kubectl(args: string[]): Promise<string> {
  const r = await api.kubectl(args, { timeoutMs: 30_000 });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} → ${r.code}: ${r.stderr}`);
  return r.stdout;
}

beforeAll(async () => {
  api = await startTestApiServer(PORT_BASE, ['--etcd-client-transport=grpc-js']);
}, 240_000);

afterAll(async () => {
  await reapApiServers();
});

describe('the API server over the grpc-js etcd client', () => {
  it('creates, updates, lists and watches through it; the objects are in etcd', async () => {
    await kubectl(['create', 'configmap', 'via-grpc-js', '--from-literal=k=v1']);
    await kubectl(['patch', 'configmap', 'via-grpc-js', '-p', '{"data":{"k":"v2"}}']);
    expect(await kubectl(['get', 'configmap', 'via-grpc-js', '-o', 'jsonpath={.data.k}'])).toBe('v2');
    const names = (await kubectl(['get', 'configmaps', '-o', 'jsonpath={.items[*].metadata.name}'])).split(' ');
    expect(names).toContain('via-grpc-js');

    // A watch from the list's resourceVersion sees a later write.
    const rv = await kubectl(['get', 'configmaps', '-o', 'jsonpath={.metadata.resourceVersion}']);
    const watch = api.kubectl(['get', '--raw', `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv}&timeoutSeconds=5`], { timeoutMs: 30_000 });
    await kubectl(['create', 'configmap', 'after-watch']);
    const events = (await watch).stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; object: { metadata: { name: string } } });
    expect(events.map((e) => `${e.type} ${e.object.metadata.name}`)).toContain('ADDED after-watch');

    const stored = await api.etcdctl(['get', '/registry/configmaps/default/via-grpc-js', '--keys-only']);
    expect(stored.stdout.trim()).toBe('/registry/configmaps/default/via-grpc-js');
    expect(api.proc.running).toBe(true);
  });
});
