import { afterAll, describe, expect, it } from 'vitest';
import { Client, Server, ServerCredentials, type ServiceDefinition } from '@grpc/grpc-js';
import { issueCa, issueLeaf, type KeyAndCert } from '../../../main/common/pki/certificates';
import { clientUrlChannel, hostOfTarget, tlsChannel } from '../../../main/common/tlsChannel';

// An echo service on raw bytes, so the test needs no .proto.
const bytes = { serialize: (b: Buffer) => b, deserialize: (b: Buffer) => b };
const ECHO: ServiceDefinition = {
  Echo: {
    path: '/test.Echo/Echo',
    requestStream: false,
    responseStream: false,
    requestSerialize: bytes.serialize,
    requestDeserialize: bytes.deserialize,
    responseSerialize: bytes.serialize,
    responseDeserialize: bytes.deserialize,
  },
};

const ca = await issueCa('tlsChannel-test-ca');
const servers: Server[] = [];

async function serve(leaf: KeyAndCert): Promise<number> {
  const server = new Server();
  server.addService(ECHO, { Echo: (call: { request: Buffer }, cb: (e: null, r: Buffer) => void) => cb(null, call.request) });
  servers.push(server);
  const creds = ServerCredentials.createSsl(Buffer.from(ca.cert), [{ cert_chain: Buffer.from(leaf.cert), private_key: Buffer.from(leaf.key) }], false);
  return new Promise((resolve, reject) => server.bindAsync('127.0.0.1:0', creds, (err, port) => (err ? reject(err) : resolve(port))));
}

function echo(port: number): Promise<string> {
  const client = tlsClient(port);
  return new Promise<string>((resolve, reject) => {
    client.makeUnaryRequest('/test.Echo/Echo', bytes.serialize, bytes.deserialize, Buffer.from('ping'), { deadline: Date.now() + 5_000 }, (err, res) => {
      client.close();
      if (err) reject(err);
      else resolve(res!.toString());
    });
  });
}

const client = await issueLeaf(ca, { profile: 'client', commonName: 'root' });

function tlsClient(port: number): Client {
  const ch = tlsChannel('127.0.0.1', Buffer.from(ca.cert), Buffer.from(client.key), Buffer.from(client.cert));
  return new Client(`127.0.0.1:${port}`, ch.credentials, ch.options);
}

afterAll(() => {
  for (const s of servers) s.forceShutdown();
});

describe('tlsChannel', () => {
  it('verifies an IP target against the IP, without an IP in the TLS server name (no DEP0123)', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error & { code?: string }) => warnings.push(w.code ?? w.message);
    process.on('warning', onWarning);
    try {
      const port = await serve(await issueLeaf(ca, { profile: 'server', commonName: 'ip-only', hosts: ['127.0.0.1'] }));
      expect(await echo(port)).toBe('ping');
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('DEP0123');
  });

  it('refuses a certificate that names only "localhost" when the target is an IP', async () => {
    const port = await serve(await issueLeaf(ca, { profile: 'server', commonName: 'name-only', hosts: ['localhost'] }));
    await expect(echo(port)).rejects.toMatchObject({ code: 14 });
  });

  it.each([
    { name: 'v4', input: '127.0.0.1:2379', want: '127.0.0.1' },
    { name: 'v6', input: '[::1]:2379', want: '::1' },
    { name: 'dns', input: 'node1.example:2380', want: 'node1.example' },
  ])('hostOfTarget $name', ({ input, want }) => {
    expect(hostOfTarget(input)).toBe(want);
  });

  it('clientUrlChannel: http is plaintext, https needs TLS material, other schemes are refused', () => {
    expect(clientUrlChannel('http://127.0.0.1:2379', undefined)?.target).toBe('127.0.0.1:2379');
    expect(clientUrlChannel('https://127.0.0.1:2379', undefined)).toBeUndefined();
    expect(clientUrlChannel('unix://x:1', undefined)).toBeUndefined();
    const https = clientUrlChannel('https://127.0.0.1:2379', { ca: ca.cert, cert: ca.cert, key: ca.key });
    expect(https?.target).toBe('127.0.0.1:2379');
    expect(https?.options['grpc.ssl_target_name_override']).toBe('localhost');
  });
});
