import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkConnectionDraft, ConnectionStore, connectionKind } from '../../../main/console/connections';

const exists = (p: string) => p.startsWith('/pki/');

describe('checkConnectionDraft', () => {
  const accepted = [
    {
      name: 'etcd with mutual TLS',
      input: { name: 'prod', etcd: { endpoints: ['https://10.0.0.1:2379', ' 10.0.0.2:2379 ', ''], cacert: '/pki/ca.crt', cert: '/pki/c.crt', key: '/pki/c.key' }, writable: false },
      want: { name: 'prod', etcd: { endpoints: ['https://10.0.0.1:2379', '10.0.0.2:2379'], cacert: '/pki/ca.crt', cert: '/pki/c.crt', key: '/pki/c.key' }, writable: false },
    },
    { name: 'a kubeconfig context', input: { name: 'k', kube: { kubeconfig: '/pki/kc', context: 'admin@k' }, writable: true }, want: { name: 'k', kube: { kubeconfig: '/pki/kc', context: 'admin@k' }, writable: true } },
    { name: 'both, empty strings unset', input: { id: 'c-1', name: 'b', etcd: { endpoints: ['http://h:2379/'], cacert: '' }, kube: { kubeconfig: '/pki/kc', context: '' }, writable: false }, want: { id: 'c-1', name: 'b', etcd: { endpoints: ['http://h:2379'] }, kube: { kubeconfig: '/pki/kc' }, writable: false } },
  ];
  for (const c of accepted) it(`accepts ${c.name}`, () => expect(checkConnectionDraft(c.input, exists)).toEqual(c.want));

  const refused = [
    { name: 'a non-object', input: 'prod', want: /connection must be an object/ },
    { name: 'an unknown field', input: { name: 'x', writable: false, etcd: { endpoints: ['h:1'] }, password: 'p' }, want: /connection\.password: no such field/ },
    { name: 'an unknown etcd field', input: { name: 'x', writable: false, etcd: { endpoints: ['h:1'], user: 'root' } }, want: /etcd\.user: no such field/ },
    { name: 'no name', input: { writable: false, etcd: { endpoints: ['h:1'] } }, want: /connection\.name is required/ },
    { name: 'a numeric name', input: { name: 3, writable: false, etcd: { endpoints: ['h:1'] } }, want: /connection\.name must be a string/ },
    { name: 'writable missing', input: { name: 'x', etcd: { endpoints: ['h:1'] } }, want: /connection\.writable must be true or false/ },
    { name: 'writable as a string', input: { name: 'x', writable: 'yes', etcd: { endpoints: ['h:1'] } }, want: /connection\.writable must be true or false/ },
    { name: 'endpoints as a string', input: { name: 'x', writable: false, etcd: { endpoints: 'h:1' } }, want: /etcd\.endpoints must be a list/ },
    { name: 'no endpoints', input: { name: 'x', writable: false, etcd: { endpoints: [] } }, want: /at least one endpoint/ },
    { name: 'an endpoint without a port', input: { name: 'x', writable: false, etcd: { endpoints: ['https://h'] } }, want: /has no port/ },
    { name: 'a unix endpoint', input: { name: 'x', writable: false, etcd: { endpoints: ['unix://h:1'] } }, want: /must be http:\/\/ or https:\/\// },
    { name: 'a relative CA', input: { name: 'x', writable: false, etcd: { endpoints: ['h:1'], cacert: 'ca.crt' } }, want: /etcd\.cacert must be an absolute path/ },
    { name: 'a missing CA', input: { name: 'x', writable: false, etcd: { endpoints: ['h:1'], cacert: '/nope/ca.crt' } }, want: /etcd\.cacert \/nope\/ca\.crt: no such file/ },
    { name: 'a cert without its key', input: { name: 'x', writable: false, etcd: { endpoints: ['h:1'], cert: '/pki/c.crt' } }, want: /etcd\.cert and etcd\.key go together/ },
    { name: 'kube without a kubeconfig', input: { name: 'x', writable: false, kube: { context: 'c' } }, want: /kube\.kubeconfig is required/ },
    { name: 'neither etcd nor kube', input: { name: 'x', writable: false }, want: /needs etcd endpoints, a kubeconfig, or both/ },
    { name: "the lab's id", input: { id: 'lab', name: 'x', writable: false, etcd: { endpoints: ['h:1'] } }, want: /is the embedded lab's/ },
  ];
  for (const c of refused) it(`refuses ${c.name}`, () => expect(() => checkConnectionDraft(c.input, exists)).toThrow(c.want));

  it('names the kind', () => {
    expect(connectionKind({ name: 'a', etcd: { endpoints: ['h:1'] }, writable: false })).toBe('etcd');
    expect(connectionKind({ name: 'a', kube: { kubeconfig: '/k' }, writable: false })).toBe('kube');
    expect(connectionKind({ name: 'a', etcd: { endpoints: ['h:1'] }, kube: { kubeconfig: '/k' }, writable: false })).toBe('etcd+kube');
  });
});

describe('ConnectionStore', () => {
  const dir = mkdtempSync(join(tmpdir(), 'connections-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  const store = new ConnectionStore(join(dir, 'console', 'connections.json'), () => `c-${++n}`);

  it('saves, replaces, refuses a second of the same name, upserts by name and deletes; the file is 0600', () => {
    expect(store.list()).toEqual([]);
    const a = store.save({ name: 'prod', etcd: { endpoints: ['https://h:2379'], cacert: '/pki/ca.crt' }, writable: false });
    expect(a.id).toBe('c-1');
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(store.file, 'utf8'))).toEqual({ connections: [a] });
    store.save({ ...a, writable: true });
    expect(store.get('c-1')?.writable).toBe(true);
    expect(() => store.save({ name: 'prod', kube: { kubeconfig: '/k' }, writable: false })).toThrow('a connection named "prod" exists already');
    const up = store.upsertByName({ name: 'prod', kube: { kubeconfig: '/k' }, writable: false });
    expect(up.id).toBe('c-1');
    expect(store.list()).toEqual([{ id: 'c-1', name: 'prod', kube: { kubeconfig: '/k' }, writable: false }]);
    const b = store.upsertByName({ name: 'staging', etcd: { endpoints: ['h:1'] }, writable: false });
    expect(store.list().map((c) => c.id)).toEqual(['c-1', b.id]);
    expect(store.delete('c-1')).toBe(true);
    expect(store.delete('c-1')).toBe(false);
    expect(store.list().map((c) => c.name)).toEqual(['staging']);
  });
});
