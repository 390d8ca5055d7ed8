import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Command } from 'commander';
import { buildAdmissionChain, parseAdmissionConfiguration, readAdmissionConfiguration } from '../../../../main/apiserver/admission/chain';
import { ADMISSION_PLUGIN_ORDER, enabledAdmissionPlugins, validateAdmissionPluginFlags } from '../../../../main/apiserver/admission/plugins';
import { admissionOptions } from '../../../../main/apiserver/options/admission';
import type { ApiServerConfig } from '../../../../main/apiserver/config';
import { fakeEnv } from './fakeEnv';

const dir = mkdtempSync(join(tmpdir(), 'admission-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('enabled admission plugins', () => {
  const cases: { name: string; enable: string[]; disable: string[]; control?: string[]; want: string[] }[] = [
    {
      name: 'kube-apiserver defaults, in AllOrderedPlugins order',
      enable: [],
      disable: [],
      want: [
        'NamespaceLifecycle', 'LimitRanger', 'ServiceAccount', 'TaintNodesByCondition', 'PodSecurity', 'Priority', 'DefaultTolerationSeconds',
        'DefaultStorageClass', 'StorageObjectInUseProtection', 'PersistentVolumeClaimResize', 'RuntimeClass', 'CertificateApproval', 'CertificateSigning',
        'ClusterTrustBundleAttest', 'CertificateSubjectRestriction', 'DefaultIngressClass', 'MutatingAdmissionWebhook', 'ValidatingAdmissionPolicy',
        'ValidatingAdmissionWebhook', 'ResourceQuota',
      ],
    },
    { name: 'enable adds a default-off plugin in its place', enable: ['AlwaysPullImages'], disable: ['DefaultStorageClass', 'PersistentVolumeClaimResize', 'StorageObjectInUseProtection', 'RuntimeClass', 'CertificateApproval', 'CertificateSigning', 'ClusterTrustBundleAttest', 'CertificateSubjectRestriction', 'DefaultIngressClass', 'Priority', 'TaintNodesByCondition', 'PodSecurity', 'MutatingAdmissionWebhook', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook'], want: ['NamespaceLifecycle', 'LimitRanger', 'ServiceAccount', 'AlwaysPullImages', 'DefaultTolerationSeconds', 'ResourceQuota'] },
    { name: '--admission-control names exactly the plugins, ordered', enable: [], disable: [], control: ['ResourceQuota', 'NamespaceLifecycle'], want: ['NamespaceLifecycle', 'ResourceQuota'] },
  ];
  for (const c of cases) it(c.name, () => expect(enabledAdmissionPlugins(c.enable, c.disable, c.control)).toEqual(c.want));

  it('the order has every plugin once', () => expect(new Set(ADMISSION_PLUGIN_ORDER).size).toBe(ADMISSION_PLUGIN_ORDER.length));
});

describe('admission flag validation (kube messages)', () => {
  const cases: { name: string; enable: string[]; disable: string[]; control?: string[]; want: string[] }[] = [
    { name: 'valid', enable: ['AlwaysPullImages'], disable: ['ServiceAccount'], want: [] },
    { name: 'unknown enable', enable: ['Nope'], disable: [], want: ['enable-admission-plugins plugin "Nope" is unknown'] },
    { name: 'unknown disable', enable: [], disable: ['Nah'], want: ['disable-admission-plugins plugin "Nah" is unknown'] },
    { name: 'overlap', enable: ['LimitRanger', 'ServiceAccount'], disable: ['ServiceAccount', 'LimitRanger'], want: ['[LimitRanger ServiceAccount] in enable-admission-plugins and disable-admission-plugins overlapped'] },
    {
      name: 'deprecated flag with the new ones',
      enable: ['LimitRanger'],
      disable: [],
      control: ['Bogus'],
      want: ['admission-control and enable-admission-plugins/disable-admission-plugins flags are mutually exclusive', 'admission-control plugin "Bogus" is unknown'],
    },
  ];
  for (const c of cases) it(c.name, () => expect(validateAdmissionPluginFlags(c.enable, c.disable, c.control)).toEqual(c.want));
});

describe('AdmissionConfiguration', () => {
  it('reads inline configuration and relative paths', () => {
    writeFileSync(join(dir, 'psa.yaml'), 'apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\ndefaults:\n  enforce: baseline\n');
    const file = join(dir, 'admission.yaml');
    writeFileSync(
      file,
      [
        'apiVersion: apiserver.config.k8s.io/v1',
        'kind: AdmissionConfiguration',
        'plugins:',
        '- name: PodSecurity',
        '  path: psa.yaml',
        '- name: ResourceQuota',
        '  configuration:',
        '    apiVersion: apiserver.config.k8s.io/v1',
        '    kind: ResourceQuotaConfiguration',
        '    limitedResources: []',
      ].join('\n'),
    );
    const configs = readAdmissionConfiguration(file);
    expect(configs.get('PodSecurity')).toEqual({ apiVersion: 'pod-security.admission.config.k8s.io/v1', kind: 'PodSecurityConfiguration', defaults: { enforce: 'baseline' } });
    expect(configs.get('ResourceQuota')).toEqual({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'ResourceQuotaConfiguration', limitedResources: [] });
  });

  const bad: { name: string; doc: unknown; want: string }[] = [
    { name: 'wrong kind', doc: { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'Policy' }, want: `Object 'Kind' is "Policy", want "AdmissionConfiguration"` },
    { name: 'wrong version', doc: { apiVersion: 'v1', kind: 'AdmissionConfiguration' }, want: 'no kind "AdmissionConfiguration" is registered for version "v1"' },
    { name: 'missing path file', doc: { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AdmissionConfiguration', plugins: [{ name: 'X', path: 'missing.yaml' }] }, want: "couldn't open admission plugin configuration" },
  ];
  for (const c of bad) it(`refuses: ${c.name}`, () => expect(() => parseAdmissionConfiguration(c.doc, dir, 'f.yaml')).toThrow(c.want));
});

describe('buildAdmissionChain', () => {
  it('skips enabled plugins it does not implement, with a log line, and passes each its configuration', () => {
    const env = fakeEnv();
    const seen: unknown[] = [];
    const chain = buildAdmissionChain(env, {
      names: ['NamespaceLifecycle', 'PodSecurity', 'DefaultStorageClass', 'ResourceQuota'],
      configs: new Map([['PodSecurity', { defaults: { enforce: 'restricted' } }]]),
      factories: {
        PodSecurity: (_e, ctx) => (seen.push(ctx.config), { name: 'PodSecurity' }),
        ResourceQuota: () => ({ name: 'ResourceQuota' }),
        NamespaceLifecycle: () => ({ name: 'NamespaceLifecycle' }),
      },
    });
    expect(chain.map((p) => p.name)).toEqual(['NamespaceLifecycle', 'PodSecurity', 'ResourceQuota']);
    expect(seen).toEqual([{ defaults: { enforce: 'restricted' } }]);
    expect(env.logs.join('\n')).toContain('not implemented here, skipped: DefaultStorageClass');
  });
});

describe('admission flags', () => {
  const parse = async (args: string[]): Promise<ApiServerConfig> => {
    const cmd = new Command().exitOverride();
    admissionOptions.register(cmd);
    cmd.parse(['node', 'x', ...args]);
    const cfg = {} as ApiServerConfig;
    await admissionOptions.apply(cmd.opts(), cfg);
    return cfg;
  };

  it('--disable-admission-plugins=ServiceAccount leaves it out of the chain', async () => {
    const cfg = await parse(['--disable-admission-plugins=ServiceAccount']);
    const names = cfg.plugins!.admission!(fakeEnv()).map((p) => p.name);
    expect(names).toContain('NamespaceLifecycle');
    expect(names).toContain('DefaultTolerationSeconds');
    expect(names).not.toContain('ServiceAccount');
  });

  it('an unknown plugin fails with kube’s message', async () => {
    await expect(parse(['--enable-admission-plugins=Nope'])).rejects.toThrow('enable-admission-plugins plugin "Nope" is unknown');
  });

  it('toleration seconds flags reach DefaultTolerationSeconds', async () => {
    const cfg = await parse(['--default-not-ready-toleration-seconds=60', '--default-unreachable-toleration-seconds=90']);
    const plugin = cfg.plugins!.admission!(fakeEnv()).find((p) => p.name === 'DefaultTolerationSeconds')!;
    const pod = { metadata: { name: 'p' }, spec: { containers: [] as unknown[] } } as unknown as import('../../../../main/kube/object').KObject;
    await plugin.admit!({ operation: 'CREATE', group: '', version: 'v1', kind: 'Pod', resource: 'pods', subresource: '', namespace: 'default', name: 'p', user: { username: 'u', groups: [] }, dryRun: false, object: pod, warnings: [], auditAnnotations: {} });
    expect((pod as unknown as { spec: { tolerations: { tolerationSeconds: number }[] } }).spec.tolerations.map((t) => t.tolerationSeconds)).toEqual([60, 90]);
  });
});

describe('NamespaceLifecycle in the chain', () => {
  it('handles namespaced creates and namespace deletes only (status updates skip it)', () => {
    const [nl] = buildAdmissionChain(fakeEnv(), { names: ['NamespaceLifecycle'] });
    const base = { group: '', version: 'v1', kind: 'Pod', resource: 'pods', subresource: '', namespace: 'default', name: 'p', user: { username: 'u', groups: [] }, dryRun: false, warnings: [], auditAnnotations: {} };
    const cases: { name: string; attrs: Partial<typeof base> & { operation: 'CREATE' | 'UPDATE' | 'DELETE' }; want: boolean }[] = [
      { name: 'pod create', attrs: { operation: 'CREATE' }, want: true },
      { name: 'pod status update', attrs: { operation: 'UPDATE', subresource: 'status' }, want: false },
      { name: 'pod delete', attrs: { operation: 'DELETE' }, want: false },
      { name: 'namespace delete', attrs: { operation: 'DELETE', resource: 'namespaces', kind: 'Namespace', namespace: '' }, want: true },
      { name: 'cluster-scoped create', attrs: { operation: 'CREATE', resource: 'nodes', kind: 'Node', namespace: '' }, want: false },
    ];
    for (const c of cases) expect(nl.handles!({ ...base, ...c.attrs }), c.name).toBe(c.want);
  });
});
