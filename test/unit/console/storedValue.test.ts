import { describe, expect, it } from 'vitest';
import { decodeStoredValue, hexDump } from '../../../main/console/storedValue';
import { parseRegistryKey } from '../../../main/console/watchFeed';

describe('parseRegistryKey', () => {
  const cases = [
    { key: '/registry/deployments/default/nginx', want: { resource: 'deployments', namespace: 'default', name: 'nginx' } },
    { key: '/registry/namespaces/kube-system', want: { resource: 'namespaces', name: 'kube-system' } },
    { key: '/registry/services/specs/default/kubernetes', want: { resource: 'services', namespace: 'default', name: 'kubernetes' } },
    { key: '/registry/services/endpoints/default/kubernetes', want: { resource: 'endpoints', namespace: 'default', name: 'kubernetes' } },
    { key: '/registry/minions/node-1', want: { resource: 'nodes', name: 'node-1' } },
    { key: '/registry/ranges/serviceips', want: { resource: 'ranges', name: 'serviceips' } },
    { key: '/registry/leases/kube-node-lease/node-1', want: { resource: 'leases', namespace: 'kube-node-lease', name: 'node-1' } },
    { key: 'foo', want: {} },
  ];
  for (const c of cases) it(c.key, () => expect(parseRegistryKey(c.key)).toEqual(c.want));
});

describe('decodeStoredValue', () => {
  it('decodes JSON objects to YAML with their kind', () => {
    const v = decodeStoredValue(Buffer.from('{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"x"},"data":{"a":"b"}}'));
    expect(v.encoding).toBe('json');
    expect(v.kind).toBe('ConfigMap');
    expect(v.yaml).toContain('kind: ConfigMap');
    expect(v.yaml).toContain('  a: b');
  });
  it('names encrypted values without showing the payload', () => {
    const v = decodeStoredValue(Buffer.concat([Buffer.from('k8s:enc:aescbc:v1:key1:'), Buffer.from([1, 2, 3, 250])]));
    expect(v.encoding).toBe('encrypted');
    expect(v.yaml).toContain('provider aescbc');
    expect(v.yaml).toContain('key "key1"');
  });
  it('shows text as is and binary as a hex dump', () => {
    expect(decodeStoredValue(Buffer.from('hello world'))).toEqual({ encoding: 'text', yaml: 'hello world' });
    const bin = decodeStoredValue(Buffer.from([0, 1, 2, 0xff, 0x41]));
    expect(bin.encoding).toBe('binary');
    expect(bin.yaml).toBe(`00000000  ${'00 01 02 ff 41'.padEnd(47)}  ....A`);
  });
  it('hex dumps say how much they left out', () => {
    expect(hexDump(Buffer.alloc(40), 16).split('\n')).toHaveLength(2);
    expect(hexDump(Buffer.alloc(40), 16)).toContain('… 24 more bytes');
  });
});

describe('decodeStoredValue with protobuf', () => {
  it('decodes what the API server stores (k8s\\0 + runtime.Unknown) to YAML', async () => {
    const { protobufCodec } = await import('../../../main/kube/codec');
    const bytes = protobufCodec().encode({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'nginx', namespace: 'default', labels: { app: 'nginx' } },
      spec: { replicas: 2, selector: { matchLabels: { app: 'nginx' } }, template: { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } } },
    });
    const v = decodeStoredValue(Buffer.from(bytes));
    expect(v.encoding).toBe('protobuf');
    expect(v.kind).toBe('Deployment');
    expect(v.apiVersion).toBe('apps/v1');
    expect(v.yaml).toContain('replicas: 2');
    expect(v.yaml).toContain('image: nginx');
  });
});
