// Test plumbing: a client port on an ephemeral loopback port in front of a
// FakeEtcdServer, Debian's etcdctl run against it, and a raw grpc-js client
// over the same protos (for exact status codes and custom metadata).

import { spawn } from 'node:child_process';
import { credentials, Metadata, type Client, type ServiceError } from '@grpc/grpc-js';
import { startClientServer, type ClientServerHandle } from '../../../../main/etcd/api/index';
import { etcdGrpcPackage } from '../../../support/etcdGrpc';
import { FakeEtcdServer } from './fakeEtcdServer';

export const ETCDCTL = '/usr/bin/etcdctl';

export interface Harness {
  fake: FakeEtcdServer;
  handle: ClientServerHandle;
  endpoint: string;
  close(): Promise<void>;
}

export async function startHarness(maxRequestBytes = 1.5 * 1024 * 1024): Promise<Harness> {
  const fake = new FakeEtcdServer({ maxRequestBytes });
  const handle = await startClientServer(fake, { listenUrls: ['http://127.0.0.1:0'], maxRequestBytes });
  return { fake, handle, endpoint: `127.0.0.1:${handle.ports[0]}`, close: () => handle.close() };
}

export interface CtlResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs etcdctl (API v3) against one endpoint; resolves with its exit code and output. */
export function etcdctl(endpoint: string, args: string[], input?: string): Promise<CtlResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(ETCDCTL, ['--endpoints', endpoint, ...args], {
      env: { PATH: process.env.PATH ?? '', ETCDCTL_API: '3' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.on('error', () => {}); // EPIPE when etcdctl exits without reading stdin
    child.stdin.end(input ?? '');
  });
}

/** The last "Error: ..." line etcdctl printed (it logs retry warnings before it). */
export function ctlError(r: CtlResult): string | undefined {
  return r.stderr
    .split('\n')
    .filter((l) => l.startsWith('Error: '))
    .pop();
}

type UnaryMethod = (req: object, md: Metadata, cb: (err: ServiceError | null, res?: any) => void) => void;
export type RawClient = Client & Record<string, UnaryMethod>;

/** A plain grpc-js client for `etcdserverpb.<service>`. */
export function rawClient(endpoint: string, service: 'KV' | 'Cluster' | 'Maintenance', options: object = {}): RawClient {
  const etcdserverpb = etcdGrpcPackage();
  const Ctor = etcdserverpb[service];
  return new Ctor(endpoint, credentials.createInsecure(), options) as RawClient;
}

/** Calls one unary method; resolves with the response or the ServiceError. */
export function call(client: RawClient, method: string, req: object, md = new Metadata()): Promise<{ err?: ServiceError; res?: any }> {
  return new Promise((resolve) => {
    client[method]!(req, md, (err, res) => resolve(err ? { err } : { res }));
  });
}
