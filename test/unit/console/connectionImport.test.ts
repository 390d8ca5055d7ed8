import { describe, expect, it } from 'vitest';
import { draftFromEtcdctlEnvFile, draftFromEtcdctlVars, draftFromKubeadmDir, draftsFromKubeconfigs, kubeconfigFiles } from '../../../main/console/connectionImport';
import { checkImportRequest } from '../../../main/console/consoleSessions';

describe('etcdctl variables and etcdctl.env', () => {
  const cases = [
    {
      name: 'the four variables',
      vars: { ETCDCTL_ENDPOINTS: 'https://10.0.0.1:2379,https://10.0.0.2:2379', ETCDCTL_CACERT: '/pki/ca.crt', ETCDCTL_CERT: '/pki/c.crt', ETCDCTL_KEY: '/pki/c.key', HOME: '/root' },
      want: { name: 'etcd 10.0.0.1:2379', etcd: { endpoints: ['https://10.0.0.1:2379', 'https://10.0.0.2:2379'], cacert: '/pki/ca.crt', cert: '/pki/c.crt', key: '/pki/c.key' }, writable: false },
    },
    { name: 'endpoints only, spaces trimmed', vars: { ETCDCTL_ENDPOINTS: ' 127.0.0.1:2379 , ' }, want: { name: 'etcd 127.0.0.1:2379', etcd: { endpoints: ['127.0.0.1:2379'] }, writable: false } },
    { name: 'relative paths from the base', vars: { ETCDCTL_ENDPOINTS: 'h:1', ETCDCTL_CACERT: 'pki/ca.crt' }, want: { etcd: { endpoints: ['h:1'], cacert: '/base/pki/ca.crt' } } },
    { name: 'no endpoints', vars: { ETCDCTL_CACERT: '/pki/ca.crt' }, want: undefined },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = draftFromEtcdctlVars(c.vars, '/base');
      if (c.want === undefined) expect(got).toBeUndefined();
      else expect(got).toMatchObject(c.want);
    });
  }

  it('reads the export lines of an etcdctl.env file, quoted values and its own directory for relative paths', () => {
    const text = "# source me\nexport ETCDCTL_API=3\nexport ETCDCTL_ENDPOINTS='https://127.0.0.1:2379,https://127.0.0.1:2381'\nexport ETCDCTL_CACERT=pki/ca.crt\nexport ETCDCTL_CERT='/d/pki/client.crt'\nexport ETCDCTL_KEY=/d/pki/client.key\n";
    expect(draftFromEtcdctlEnvFile(text, '/d/etcdctl.env')).toEqual({
      name: 'etcd 127.0.0.1:2379',
      etcd: { endpoints: ['https://127.0.0.1:2379', 'https://127.0.0.1:2381'], cacert: '/d/pki/ca.crt', cert: '/d/pki/client.crt', key: '/d/pki/client.key' },
      writable: false,
    });
  });
});

describe("kubeadm's pki/etcd", () => {
  const dir = '/etc/kubernetes/pki/etcd';
  it('the health-check client beside the CA', () => {
    const files = new Set([`${dir}/ca.crt`, `${dir}/healthcheck-client.crt`, `${dir}/healthcheck-client.key`, '/etc/kubernetes/pki/apiserver-etcd-client.crt', '/etc/kubernetes/pki/apiserver-etcd-client.key']);
    expect(draftFromKubeadmDir(dir, (p) => files.has(p))).toEqual({
      name: 'kubeadm etcd 127.0.0.1:2379',
      etcd: { endpoints: ['https://127.0.0.1:2379'], cacert: `${dir}/ca.crt`, cert: `${dir}/healthcheck-client.crt`, key: `${dir}/healthcheck-client.key` },
      writable: false,
    });
  });
  it("else the API server's etcd client one level up", () => {
    const files = new Set([`${dir}/ca.crt`, `${dir}/healthcheck-client.crt`, '/etc/kubernetes/pki/apiserver-etcd-client.crt', '/etc/kubernetes/pki/apiserver-etcd-client.key']);
    expect(draftFromKubeadmDir(dir, (p) => files.has(p)).etcd).toMatchObject({ cert: '/etc/kubernetes/pki/apiserver-etcd-client.crt', key: '/etc/kubernetes/pki/apiserver-etcd-client.key' });
  });
  it('no CA, or no client pair: said plainly', () => {
    expect(() => draftFromKubeadmDir(dir, () => false)).toThrow(`${dir}/ca.crt: no such file (is ${dir} kubeadm's pki/etcd directory?)`);
    expect(() => draftFromKubeadmDir(dir, (p) => p === `${dir}/ca.crt`)).toThrow(/no client certificate for etcd: neither .*healthcheck-client\.crt .* nor .*apiserver-etcd-client\.crt/);
  });
});

const kubeconfig = (current: string | undefined, contexts: string[]) =>
  [
    'apiVersion: v1',
    'kind: Config',
    ...(current ? [`current-context: ${current}`] : []),
    'clusters:',
    '- name: c',
    '  cluster:',
    '    server: https://127.0.0.1:6443',
    'users:',
    '- name: u',
    '  user:',
    '    token: t',
    'contexts:',
    ...contexts.flatMap((n) => [`- name: ${n}`, '  context:', '    cluster: c', '    user: u']),
  ].join('\n');

describe('kubeconfig contexts', () => {
  it('KUBECONFIG lists several files (empty entries skipped, each once); without it ~/.kube/config', () => {
    expect(kubeconfigFiles({ KUBECONFIG: '/a/config::/b/config:/a/config' }, '/home/u')).toEqual(['/a/config', '/b/config']);
    expect(kubeconfigFiles({ KUBECONFIG: '' }, '/home/u')).toEqual(['/home/u/.kube/config']);
    expect(kubeconfigFiles({}, '/home/u')).toEqual(['/home/u/.kube/config']);
  });

  it('every context of the merged set, the first file that defines a name winning, current-context from the first that sets one', () => {
    const got = draftsFromKubeconfigs([
      { path: '/a', text: kubeconfig(undefined, ['dev', 'prod']) },
      { path: '/b', text: kubeconfig('prod', ['prod', 'staging']) },
    ]);
    expect(got).toEqual({
      currentContext: 'prod',
      drafts: [
        { name: 'dev', kube: { kubeconfig: '/a', context: 'dev' }, writable: false },
        { name: 'prod', kube: { kubeconfig: '/a', context: 'prod' }, writable: false },
        { name: 'staging', kube: { kubeconfig: '/b', context: 'staging' }, writable: false },
      ],
    });
  });

  it('a file that is not a kubeconfig is named', () => {
    expect(() => draftsFromKubeconfigs([{ path: '/x', text: 'contexts: [unclosed' }])).toThrow(/^\/x: not a kubeconfig/);
  });
});

describe('checkImportRequest', () => {
  const cases = [
    { name: 'a source alone', input: { from: 'env' }, want: { from: 'env' } },
    { name: 'a source and a path', input: { from: 'kubeadm', path: '/etc/kubernetes/pki/etcd' }, want: { from: 'kubeadm', path: '/etc/kubernetes/pki/etcd' } },
    { name: 'an empty path is unset', input: { from: 'kubeconfig', path: '' }, want: { from: 'kubeconfig' } },
  ];
  for (const c of cases) it(`accepts ${c.name}`, () => expect(checkImportRequest(c.input)).toEqual(c.want));
  const refused = [
    { name: 'an unknown source', input: { from: 'vault' }, want: /import\.from must be one of etcdctl-env, env, kubeadm, kubeconfig/ },
    { name: 'an unknown field', input: { from: 'env', recursive: true }, want: /import\.recursive: no such field/ },
    { name: 'a relative path', input: { from: 'kubeconfig', path: '.kube/config' }, want: /import\.path must be an absolute path/ },
    { name: 'a numeric path', input: { from: 'kubeconfig', path: 1 }, want: /import\.path must be an absolute path/ },
    { name: 'no object', input: null, want: /import must be an object/ },
  ];
  for (const c of refused) it(`refuses ${c.name}`, () => expect(() => checkImportRequest(c.input)).toThrow(c.want));
});
