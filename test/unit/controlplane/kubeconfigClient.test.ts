import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueCa, issueLeaf } from '../../../main/common/pki/certificates';
import { kubeconfigClient } from '../../../main/controlplane/readiness';

// A kubeconfig shaped as `up` writes it (apiserverLayout.ts kubeconfigYaml),
// read without client-node, against an HTTPS server that wants a client certificate.
const b64 = (pem: string) => Buffer.from(pem).toString('base64');

describe('kubeconfigClient', () => {
  let dir: string;
  let server: Server;
  let yaml: (over?: { context?: string }) => string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pilothouse-kubeconfig-'));
    const ca = await issueCa('test-ca');
    const serving = await issueLeaf(ca, { profile: 'server', commonName: 'kube-apiserver', hosts: ['127.0.0.1'] });
    const admin = await issueLeaf(ca, { profile: 'client', commonName: 'admin', organizations: ['system:masters'] });
    server = createServer({ ca: ca.cert, cert: serving.cert, key: serving.key, requestCert: true, rejectUnauthorized: true }, (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ user: peer.subject?.CN, path: req.url }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    yaml = (over = {}) =>
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- cluster:',
        `    certificate-authority-data: ${b64(ca.cert)}`,
        `    server: ${url}`,
        '  name: pilothouse',
        'contexts:',
        '- context:',
        '    cluster: pilothouse',
        '    user: admin',
        '  name: admin@pilothouse',
        `current-context: ${over.context ?? 'admin@pilothouse'}`,
        'users:',
        '- name: admin',
        '  user:',
        `    client-certificate-data: ${b64(admin.cert)}`,
        `    client-key-data: ${b64(admin.key)}`,
        '',
      ].join('\n');
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it("talks to the current context's server as its user", async () => {
    const file = join(dir, 'kubeconfig');
    writeFileSync(file, yaml());
    const rest = kubeconfigClient(file, 'test');
    try {
      expect(await rest.get('/api/v1/nodes')).toEqual({ user: 'admin', path: '/api/v1/nodes' });
    } finally {
      rest.close();
    }
  });

  it('names what is missing', () => {
    const file = join(dir, 'kubeconfig-other');
    writeFileSync(file, yaml({ context: 'nobody@nowhere' }));
    expect(() => kubeconfigClient(file, 'test')).toThrow(`${file}: no context named nobody@nowhere`);
  });
});
