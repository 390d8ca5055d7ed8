import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { attachFromFlags, type WebCommandOptions } from '../../../main/cmd/web';

const dir = mkdtempSync(join(tmpdir(), 'web-attach-'));
const file = (name: string) => {
  const f = join(dir, name);
  writeFileSync(f, 'x');
  return f;
};
const base: WebCommandOptions = { dataDir: dir, port: 0, portBase: 2379, open: false };
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('pilothouse web: attaching from flags', () => {
  it('no attach flags: the embedded plane', () => {
    expect(attachFromFlags(base, dir)).toBeUndefined();
  });

  it('etcd endpoints with TLS files, a kubeconfig and a context; read-only unless --writable', () => {
    const [ca, cert, key, kc] = [file('ca.crt'), file('c.crt'), file('c.key'), file('kubeconfig')];
    const a = attachFromFlags({ ...base, etcdEndpoints: 'https://10.0.0.1:2379, https://10.0.0.2:2379', etcdCacert: ca, etcdCert: cert, etcdKey: key, kubeconfig: kc, context: 'prod' }, dir)!;
    expect(a).toMatchObject({ name: 'prod', writable: false, etcd: { endpoints: ['https://10.0.0.1:2379', 'https://10.0.0.2:2379'], cacert: ca, cert, key }, kube: { kubeconfig: kc, context: 'prod' } });
    // the context file sets only current-context: no credential is copied
    expect(readFileSync(a.contextFile!, 'utf8')).toBe('apiVersion: v1\nkind: Config\ncurrent-context: "prod"\n');
    expect(attachFromFlags({ ...base, etcdEndpoints: '127.0.0.1:2379', writable: true }, dir)).toMatchObject({ name: 'etcd 127.0.0.1:2379', writable: true, etcd: { endpoints: ['127.0.0.1:2379'] } });
  });

  it('flags that do not go together, and files that are not there, are refused', () => {
    expect(() => attachFromFlags({ ...base, etcdCacert: file('a') }, dir)).toThrow('--etcd-cacert without --etcd-endpoints');
    expect(() => attachFromFlags({ ...base, context: 'x' }, dir)).toThrow('--context without --kubeconfig');
    expect(() => attachFromFlags({ ...base, writable: true }, dir)).toThrow('--writable applies to an attached cluster');
    expect(() => attachFromFlags({ ...base, etcdEndpoints: 'h:1', etcdCert: file('b') }, dir)).toThrow('--etcd-cert and --etcd-key go together');
    expect(() => attachFromFlags({ ...base, etcdEndpoints: 'h:1', etcdCacert: join(dir, 'nope') }, dir)).toThrow(`--etcd-cacert ${join(dir, 'nope')}: no such file`);
  });
});
