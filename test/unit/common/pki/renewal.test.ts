// Renewal of a plane's certificates: the inventory names every leaf with its
// CA, renewal keeps the CAs and issues new keys and serials with the same
// subjects, names and usages (chains still verify), kubeconfigs that embed a
// certificate get the new one, and renewExpiring picks exactly what expires
// within the window (certificates issued with a short validity).

import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeKubeconfig, apiServerLayout } from '../../../../main/controlplane/apiserverLayout';
import { issueCa, issueLeaf, leafRequestOf } from '../../../../main/common/pki/certificates';
import { ensureClusterPki, writePair } from '../../../../main/common/pki/clusterPki';
import { ensureComponentPki } from '../../../../main/common/pki/componentPki';
import { expirationOf, pkiInventory, renewAll, renewExpiring, type ManagedCert } from '../../../../main/common/pki/renewal';

let dir: string;
const cert = (path: string) => new X509Certificate(readFileSync(path));
const embedded = (kubeconfig: string, field: string) =>
  Buffer.from(new RegExp(`^\\s*${field}:\\s*(\\S+)`, 'm').exec(readFileSync(kubeconfig, 'utf8'))?.[1] ?? '', 'base64').toString('utf8');
const byName = (name: string): ManagedCert => {
  const c = pkiInventory(dir).certs.find((x) => x.name === name);
  if (!c) throw new Error(`no ${name} in the inventory`);
  return c;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pilothouse-renewal-test-'));
  const etcd = await ensureClusterPki(join(dir, 'pki'), ['m1', 'm2']);
  const layout = await apiServerLayout(dir, 22900, 2, etcd);
  writeKubeconfig(layout);
  await ensureComponentPki(layout.pki, dir, layout.url, ['node-1']);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('certificates', () => {
  it('issues a leaf that reads back as the request it was made for', async () => {
    const ca = await issueCa('test-ca');
    const cases = [
      { profile: 'server' as const, commonName: 'm1', hosts: ['localhost', '127.0.0.1', '::1', 'm1'], organizations: undefined },
      { profile: 'client' as const, commonName: 'system:node:node-1', hosts: undefined, organizations: ['system:nodes'] },
      { profile: 'client' as const, commonName: 'admin', hosts: undefined, organizations: ['system:masters'] },
    ];
    for (const req of cases) {
      const leaf = await issueLeaf(ca, req);
      expect(leafRequestOf(leaf.cert)).toEqual(req);
      expect(new X509Certificate(leaf.cert).checkIssued(new X509Certificate(ca.cert))).toBe(true);
    }
  });

  it('honours an injected clock and validity', async () => {
    const now = new Date('2030-01-01T00:00:00Z');
    const ca = await issueCa('clock-ca', { now });
    const leaf = new X509Certificate((await issueLeaf(ca, { profile: 'client', commonName: 'x' }, { now, days: 2 })).cert);
    expect(new Date(leaf.validTo).toISOString()).toBe('2030-01-03T00:00:00.000Z');
    expect(new Date(leaf.validFrom).getTime()).toBeLessThanOrEqual(now.getTime());
  });

  it('gives every certificate its own positive serial', async () => {
    const ca = await issueCa('serial-ca');
    const serials = new Set<string>();
    for (let i = 0; i < 20; i++) serials.add(new X509Certificate((await issueLeaf(ca, { profile: 'client', commonName: 'x' })).cert).serialNumber);
    expect(serials.size).toBe(20);
    for (const s of serials) expect(Number.parseInt(s.slice(0, 2), 16)).toBeLessThan(0x80);
  });
});

describe('pki inventory', () => {
  it('names every leaf certificate of the plane with its CA, and both CAs', () => {
    const inv = pkiInventory(dir);
    expect(inv.certs.map((c) => `${c.name} ${c.caName}`)).toEqual([
      'apiserver ca',
      'apiserver-etcd-client etcd-ca',
      'controller-manager.conf ca',
      'etcd-client etcd-ca',
      'etcd-peer-m1 etcd-ca',
      'etcd-peer-m2 etcd-ca',
      'etcd-server-m1 etcd-ca',
      'etcd-server-m2 etcd-ca',
      'kubeconfig ca',
      'kubelet-node-1.conf ca',
      'scheduler.conf ca',
    ]);
    expect(inv.cas.map((c) => c.name)).toEqual(['ca', 'etcd-ca']);
    for (const c of inv.certs) {
      const issuer = inv.cas.find((a) => a.name === c.caName)!;
      expect(cert(c.pair.cert).verify(cert(issuer.pair.cert).publicKey), c.name).toBe(true);
    }
  });
});

describe('renewal', () => {
  it('renews every leaf: same CAs, new keys and serials, same subjects, names and usages, kubeconfigs rewritten', async () => {
    const before = pkiInventory(dir);
    const caPems = before.cas.map((c) => readFileSync(c.pair.cert, 'utf8') + readFileSync(c.pair.key, 'utf8'));
    const old = new Map(before.certs.map((c) => [c.name, { cert: cert(c.pair.cert), key: readFileSync(c.pair.key, 'utf8'), req: leafRequestOf(readFileSync(c.pair.cert, 'utf8')) }]));

    const renewed = await renewAll(dir);
    expect(renewed.map((c) => c.name)).toEqual(before.certs.map((c) => c.name));

    expect(before.cas.map((c) => readFileSync(c.pair.cert, 'utf8') + readFileSync(c.pair.key, 'utf8'))).toEqual(caPems);
    for (const c of pkiInventory(dir).certs) {
      const was = old.get(c.name)!;
      const now = cert(c.pair.cert);
      expect(now.serialNumber, c.name).not.toBe(was.cert.serialNumber);
      expect(readFileSync(c.pair.key, 'utf8'), c.name).not.toBe(was.key);
      expect(now.checkPrivateKey(createPrivateKey(readFileSync(c.pair.key))), c.name).toBe(true);
      expect(leafRequestOf(readFileSync(c.pair.cert, 'utf8')), c.name).toEqual(was.req);
      const ca = pkiInventory(dir).cas.find((a) => a.name === c.caName)!;
      expect(now.checkIssued(cert(ca.pair.cert)) && now.verify(cert(ca.pair.cert).publicKey), c.name).toBe(true);
      expect((statSync(c.pair.key).mode & 0o777).toString(8), c.pair.key).toBe('600');
      if (c.kubeconfig) {
        expect(embedded(c.kubeconfig, 'client-certificate-data'), c.kubeconfig).toBe(readFileSync(c.pair.cert, 'utf8'));
        expect(embedded(c.kubeconfig, 'client-key-data'), c.kubeconfig).toBe(readFileSync(c.pair.key, 'utf8'));
        expect((statSync(c.kubeconfig).mode & 0o777).toString(8), c.kubeconfig).toBe('600');
      }
    }
  });

  it('leaves a renewed component kubeconfig as the component PKI writes it (nothing rewritten at the next start)', async () => {
    const file = byName('scheduler.conf').kubeconfig!;
    const text = readFileSync(file, 'utf8');
    const layout = await apiServerLayout(dir, 22900, 2, (await ensureClusterPki(join(dir, 'pki'), ['m1', 'm2'])));
    await ensureComponentPki(layout.pki, dir, layout.url, ['node-1']);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('renews exactly the certificates that expire within the window', async () => {
    const etcdCa = { cert: readFileSync(join(dir, 'pki', 'ca.crt'), 'utf8'), key: readFileSync(join(dir, 'pki', 'ca.key'), 'utf8') };
    const m1 = byName('etcd-server-m1');
    // Reissue etcd-server-m1 for 10 days only: due within 30 days, the others (a year) not.
    writePair(m1.pair, await issueLeaf(etcdCa, leafRequestOf(readFileSync(m1.pair.cert, 'utf8')), { days: 10 }));
    const serials = new Map(pkiInventory(dir).certs.map((c) => [c.name, cert(c.pair.cert).serialNumber]));

    expect(await renewExpiring(dir, 9)).toEqual([]);
    expect(await renewExpiring(dir, 30)).toEqual(['etcd-server-m1']);
    for (const c of pkiInventory(dir).certs) {
      if (c.name === 'etcd-server-m1') expect(cert(c.pair.cert).serialNumber).not.toBe(serials.get(c.name));
      else expect(cert(c.pair.cert).serialNumber, c.name).toBe(serials.get(c.name));
    }
    const days = (expirationOf(m1).notAfter.getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(364);
    expect(await renewExpiring(dir, 30)).toEqual([]);
  });

  it('judges a kubeconfig identity by the certificate its kubeconfig embeds', async () => {
    const kubeCa = { cert: readFileSync(join(dir, 'pki', 'kube', 'ca.crt'), 'utf8'), key: readFileSync(join(dir, 'pki', 'kube', 'ca.key'), 'utf8') };
    const admin = byName('kubeconfig');
    // admin.crt has a year left, but the copy in DIR/kubeconfig (what kubectl presents) 10 days.
    const short = await issueLeaf(kubeCa, leafRequestOf(readFileSync(admin.pair.cert, 'utf8')), { days: 10 });
    const text = readFileSync(admin.kubeconfig!, 'utf8').replace(/(client-certificate-data: )\S+/, (_, f: string) => f + Buffer.from(short.cert).toString('base64'));
    writeFileSync(admin.kubeconfig!, text);
    expect(expirationOf(admin).notAfter.toISOString()).toBe(new Date(new X509Certificate(short.cert).validTo).toISOString());
    expect(await renewExpiring(dir, 30)).toEqual(['kubeconfig']);
    expect(embedded(admin.kubeconfig!, 'client-certificate-data')).toBe(readFileSync(admin.pair.cert, 'utf8'));
    expect(embedded(admin.kubeconfig!, 'client-key-data')).toBe(readFileSync(admin.pair.key, 'utf8'));
  });
});
