import { describe, expect, it } from 'vitest';
import { aggregatedList, wantsAggregated } from '../../../../main/apiserver/discovery/aggregatedDiscovery';
import { apiGroupList, apiResourceList } from '../../../../main/apiserver/discovery/legacyDiscovery';
import { openApiV2Encoding } from '../../../../main/apiserver/discovery/discoveryHandler';
import { storageVersionHash } from '../../../../main/apiserver/discovery/storageVersionHash';
import { runHealth } from '../../../../main/apiserver/discovery/health';
import { GIT_VERSION } from '../../../../main/apiserver/discovery/version';
import { allResources } from '../../../../main/apiserver/registry/index';

describe('discovery', () => {
  const defs = allResources();

  it('wantsAggregated follows the Accept list order', () => {
    const kubectl = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
    expect(wantsAggregated(kubectl)).toBe(true);
    expect(wantsAggregated('application/json')).toBe(false);
    expect(wantsAggregated(undefined)).toBe(false);
    expect(wantsAggregated('application/json,application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList')).toBe(false);
  });

  it('/openapi/v2 negotiation: JSON by default and for wildcards, protobuf under either name, 406 otherwise', () => {
    expect(openApiV2Encoding(undefined)).toBe('json');
    expect(openApiV2Encoding('*/*')).toBe('json');
    expect(openApiV2Encoding('application/json')).toBe('json');
    expect(openApiV2Encoding('application/com.github.proto-openapi.spec.v2@v1.0+protobuf')).toBe('protobuf');
    expect(openApiV2Encoding('application/com.github.proto-openapi.spec.v2.v1.0+protobuf, application/json')).toBe('protobuf');
    expect(openApiV2Encoding('text/html')).toBeUndefined();
  });

  it('storageVersionHash is base64 of the first 8 bytes of sha256(group/version/kind)', () => {
    // kube-apiserver 1.32 publishes this value for apps/v1 Deployment.
    expect(storageVersionHash('apps', 'v1', 'Deployment')).toBe('8aSe+NMegvE=');
    // and this one for v1 Pod.
    expect(storageVersionHash('', 'v1', 'Pod')).toBe('xPOwRZ+Yhw8=');
  });

  it('legacy documents: groups without core, resources with subresource entries', () => {
    const groups = apiGroupList(defs) as { groups: { name: string; preferredVersion: { groupVersion: string } }[] };
    expect(groups.groups.map((g) => g.name)).toEqual(['apps', 'rbac.authorization.k8s.io', 'admissionregistration.k8s.io', 'coordination.k8s.io', 'storagemigration.k8s.io']);
    const core = apiResourceList(defs, '', 'v1') as { groupVersion: string; resources: { name: string; kind: string; verbs: string[] }[] };
    expect(core.groupVersion).toBe('v1');
    expect(core.resources.find((r) => r.name === 'pods/binding')).toMatchObject({ kind: 'Binding', verbs: ['create'] });
    expect(apiResourceList(defs, 'nope', 'v1')).toBeUndefined();
  });

  it('aggregated documents split core (/api) from the groups (/apis)', () => {
    const core = aggregatedList(defs, true) as { items: { metadata: Record<string, unknown>; versions: { version: string; freshness: string; resources: { resource: string; scope: string }[] }[] }[] };
    expect(core.items).toHaveLength(1);
    expect(core.items[0]!.metadata).toEqual({ creationTimestamp: null });
    expect(core.items[0]!.versions[0]!.freshness).toBe('Current');
    expect(core.items[0]!.versions[0]!.resources.find((r) => r.resource === 'namespaces')!.scope).toBe('Cluster');
    const groups = aggregatedList(defs, false) as { items: { metadata: { name: string } }[] };
    expect(groups.items.map((i) => i.metadata.name)).toEqual(['apps', 'rbac.authorization.k8s.io', 'admissionregistration.k8s.io', 'coordination.k8s.io', 'storagemigration.k8s.io']);
  });

  it('gitVersion is semver that kubectl accepts', () => {
    expect(GIT_VERSION).toMatch(/^v1\.32\.0-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*$/);
  });

  it('health: ok, verbose, a failing check, one check, excluded', async () => {
    const good = { name: 'etcd', check: async () => {} };
    const bad = { name: 'etcd', check: async () => { throw new Error('down'); } };
    const ping = { name: 'ping', check: async () => {} };
    const q = (s: string) => new URLSearchParams(s);
    expect(await runHealth('readyz', '', q(''), [ping, good])).toEqual({ code: 200, body: 'ok' });
    expect(await runHealth('readyz', '', q('verbose'), [ping, good])).toEqual({ code: 200, body: '[+]ping ok\n[+]etcd ok\nreadyz check passed\n' });
    expect(await runHealth('livez', '', q(''), [ping, bad])).toEqual({ code: 500, body: '[+]ping ok\n[-]etcd failed: reason withheld\nlivez check failed\n' });
    expect(await runHealth('healthz', 'etcd', q(''), [ping, good])).toEqual({ code: 200, body: 'ok' });
    expect(await runHealth('healthz', 'nope', q(''), [ping])).toBeUndefined();
    expect(await runHealth('readyz', '', q('exclude=etcd&verbose'), [ping, bad])).toEqual({ code: 200, body: '[+]ping ok\n[+]etcd excluded: ok\nreadyz check passed\n' });
  });
});
