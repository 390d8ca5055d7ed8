// The local cluster PKI: a CA-rooted chain that Node's X.509 and TLS accept,
// each certificate with the names and usages etcd and etcdctl rely on, keys
// private to the owner, and nothing regenerated on a second run.

import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { connect, createServer, type TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureClusterPki, type CertPaths, type ClusterPki } from '../../../../main/common/pki/clusterPki';

let dir: string;
let pki: ClusterPki;
const x509 = (p: CertPaths) => new X509Certificate(readFileSync(p.cert));
/** openssl's text rendering (an independent reader), for the extensions Node does not expose. */
const OPENSSL = '/usr/bin/openssl';
const text = (p: CertPaths) => execFileSync(OPENSSL, ['x509', '-noout', '-text', '-in', p.cert], { encoding: 'utf8' });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pilothouse-pki-test-'));
  pki = await ensureClusterPki(join(dir, 'pki'), ['m1', 'm2']);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('cluster PKI', () => {
  it('lays the files out like kubeadm, per member', () => {
    expect(pki.ca.cert).toBe(join(dir, 'pki', 'ca.crt'));
    expect(pki.client.key).toBe(join(dir, 'pki', 'client.key'));
    expect(pki.members.get('m2')!.peer.cert).toBe(join(dir, 'pki', 'm2', 'peer.crt'));
  });

  it('has a self-signed ECDSA P-256 CA', () => {
    const ca = x509(pki.ca);
    expect(ca.ca).toBe(true);
    expect(ca.verify(ca.publicKey)).toBe(true);
    expect(ca.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(ca.checkPrivateKey(createPrivateKey(readFileSync(pki.ca.key)))).toBe(true);
    expect(text(pki.ca)).toMatch(/Key Usage: critical\s+Digital Signature, Key Encipherment, Certificate Sign, CRL Sign/);
  });

  const leaves = [
    { name: 'm1 server', paths: () => pki.members.get('m1')!.server, cn: 'm1', eku: 'TLS Web Server Authentication, TLS Web Client Authentication', sans: 'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:m1' },
    { name: 'm2 peer', paths: () => pki.members.get('m2')!.peer, cn: 'm2', eku: 'TLS Web Server Authentication, TLS Web Client Authentication', sans: 'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:m2' },
    { name: 'client', paths: () => pki.client, cn: 'root', eku: 'TLS Web Client Authentication', sans: undefined },
  ];
  for (const c of leaves) {
    it(`issues the ${c.name} certificate from the CA with its names and usages`, () => {
      const cert = x509(c.paths());
      expect(cert.ca).toBe(false);
      expect(cert.subject).toBe(`CN=${c.cn}`);
      expect(cert.verify(x509(pki.ca).publicKey)).toBe(true);
      expect(cert.checkIssued(x509(pki.ca))).toBe(true);
      expect(cert.checkPrivateKey(createPrivateKey(readFileSync(c.paths().key)))).toBe(true);
      expect(cert.subjectAltName).toBe(c.sans);
      const t = text(c.paths());
      expect(t).toContain(`Extended Key Usage: \n                ${c.eku}`);
      expect(t).toMatch(/Key Usage: critical\s+Digital Signature, Key Encipherment\n/);
      if (c.sans) {
        expect(cert.checkHost('localhost')).toBe('localhost');
        expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
        expect(cert.checkIP('::1')).toBe('::1');
        expect(cert.checkIP('10.0.0.1')).toBeUndefined();
      }
      // Valid now, for about a year.
      const days = (Date.parse(cert.validTo) - Date.now()) / 86_400_000;
      expect(days).toBeGreaterThan(360);
      expect(days).toBeLessThan(367);
    });
  }

  it('writes keys readable by the owner only', () => {
    for (const p of [pki.ca, pki.client, pki.members.get('m1')!.server, pki.members.get('m2')!.peer]) {
      expect((statSync(p.key).mode & 0o777).toString(8), p.key).toBe('600');
    }
  });

  it('regenerates nothing that exists, and adds what is missing', async () => {
    const before = readFileSync(pki.ca.cert, 'utf8') + readFileSync(pki.members.get('m1')!.server.cert, 'utf8');
    const again = await ensureClusterPki(pki.dir, ['m1', 'm2', 'm3']);
    expect(readFileSync(again.ca.cert, 'utf8') + readFileSync(again.members.get('m1')!.server.cert, 'utf8')).toBe(before);
    expect(x509(again.members.get('m3')!.peer).verify(x509(pki.ca).publicKey)).toBe(true);
  });

  it('completes a mutual TLS handshake with server and client certificates, and refuses a client without one', async () => {
    const server = createServer({
      cert: readFileSync(pki.members.get('m1')!.server.cert),
      key: readFileSync(pki.members.get('m1')!.server.key),
      ca: readFileSync(pki.ca.cert),
      requestCert: true,
      rejectUnauthorized: true,
    });
    server.on('secureConnection', (s: TLSSocket) => s.end(String(s.getPeerCertificate().subject.CN)));
    server.on('tlsClientError', () => {});
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const talk = (withCert: boolean) =>
      new Promise<string>((resolve) => {
        const s = connect({
          host: '127.0.0.1',
          port,
          ca: readFileSync(pki.ca.cert),
          ...(withCert && { cert: readFileSync(pki.client.cert), key: readFileSync(pki.client.key) }),
        });
        let got = '';
        s.setEncoding('utf8').on('data', (d: string) => (got += d));
        s.on('end', () => resolve(`ok:${got}`));
        s.on('error', (e: NodeJS.ErrnoException) => resolve(`error:${e.code ?? e.message}`));
      });
    try {
      expect(await talk(true)).toBe('ok:root');
      expect(await talk(false)).toMatch(/^error:/);
    } finally {
      server.close();
    }
  });
});
