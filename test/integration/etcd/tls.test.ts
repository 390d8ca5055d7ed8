// Mutual TLS on client and peer URLs (etcd's --cert-file, --key-file,
// --trusted-ca-file, --client-cert-auth and the --peer-* equivalents): a
// three-member cluster started with those flags by hand through LocalCluster,
// exercised with Debian's etcdctl. PILOTHOUSE_TEST_IMPL=etcd runs the same
// expectations against Debian's etcd. Ports 25000–25099: the cluster on
// 25000–25005, single members for the flag errors on 25010+.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterPki } from '../../../main/common/pki/clusterPki';
import { ETCD_BINARY, CLI_JS, PORTS, TARGET, reapClusters, startTestCluster, type TestCluster } from '../../support/cluster';
import { etcdctl, type CtlResult } from '../../support/etcdctl';

let tc: TestCluster;
let pki: ClusterPki;
let urls: string[];

function ctl(args: string[], endpoints: string[], withCert = true): Promise<CtlResult> {
  const tlsFlags = [`--cacert=${pki.ca.cert}`, ...(withCert ? [`--cert=${pki.client.cert}`, `--key=${pki.client.key}`] : [])];
  return etcdctl([...tlsFlags, '--command-timeout=3s', ...args], { endpoints });
}

/** The outcome of a bare TLS handshake with `port`, presenting `cert` or nothing. */
function handshake(port: number, cert?: { cert: string; key: string }): Promise<string> {
  return new Promise((resolve) => {
    const s = connect({
      host: '127.0.0.1',
      servername: 'localhost',
      port,
      ca: readFileSync(pki.ca.cert),
      ALPNProtocols: ['h2'],
      ...(cert && { cert: readFileSync(cert.cert), key: readFileSync(cert.key) }),
    });
    const timer = setTimeout(() => done('timeout'), 5_000);
    const done = (what: string) => {
      clearTimeout(timer);
      s.destroy();
      resolve(what);
    };
    // TLS 1.3: a refused client certificate shows up as an alert after the client's handshake finished.
    s.on('secureConnect', () => setTimeout(() => done('connected'), 300));
    s.on('error', () => done('refused'));
    s.on('close', () => done('refused'));
  });
}

beforeAll(async () => {
  tc = await startTestCluster(TARGET, PORTS.tls, 30_000, { tls: true });
  pki = tc.cluster.pki!;
  urls = tc.cluster.layout.map((m) => m.clientUrl);
}, 40_000);
afterAll(reapClusters);

describe(`TLS with client certificates (${TARGET})`, () => {
  it('every member is healthy over https to etcdctl with the client certificate', async () => {
    const r = await ctl(['endpoint', 'health'], urls);
    expect(r.code, r.stderr).toBe(0);
    const lines = (r.stdout + r.stderr).trim().split('\n').sort();
    expect(lines).toHaveLength(3);
    for (const [i, line] of lines.entries()) expect(line).toMatch(new RegExp(`^https://127\\.0\\.0\\.1:${PORTS.tls + 2 * i} is healthy: successfully committed proposal`));
  });

  it('puts on one member and gets on another; member list shows https URLs', async () => {
    expect((await ctl(['put', 'tls-key', 'v1'], [urls[0]!])).stdout).toBe('OK\n');
    const got = await ctl(['get', 'tls-key', '--print-value-only'], [urls[2]!]);
    expect(got.stdout).toBe('v1\n');
    const list = await ctl(['member', 'list'], [urls[1]!]);
    const rows = list.stdout.trim().split('\n').map((l) => l.split(', ').slice(2, 5)).sort();
    expect(rows).toEqual(
      [0, 1, 2].map((i) => [`m${i + 1}`, `https://127.0.0.1:${PORTS.tls + 2 * i + 1}`, `https://127.0.0.1:${PORTS.tls + 2 * i}`]),
    );
  });

  it('refuses a client without a certificate, and a plain-text client', async () => {
    const anonymous = await ctl(['get', 'tls-key'], [urls[0]!], false);
    expect(anonymous.code).not.toBe(0);
    expect(anonymous.stdout).toBe('');
    expect(anonymous.stderr).toMatch(/context deadline exceeded|certificate|handshake/);
    const plain = await etcdctl(['--command-timeout=2s', 'get', 'tls-key'], { endpoints: [`127.0.0.1:${PORTS.tls}`] });
    expect(plain.code).not.toBe(0);
    expect(plain.stdout).toBe('');
  });

  it('keeps a lease alive through every member (followers reach the leader over TLS)', async () => {
    const grant = await ctl(['lease', 'grant', '60'], [urls[0]!]);
    const id = /lease ([0-9a-f]+) granted/.exec(grant.stdout)?.[1];
    expect(id, grant.stdout + grant.stderr).toBeDefined();
    for (const url of urls) {
      const r = await ctl(['lease', 'keep-alive', '--once', id!], [url]);
      expect(r.stdout, `${url}: ${r.stderr}`).toBe(`lease ${id} keepalived with TTL(60)\n`);
    }
  });

  it('peer ports require a certificate from the cluster CA', async () => {
    const peerPort = PORTS.tls + 1;
    expect(await handshake(peerPort, pki.members.get('m2')!.peer)).toBe('connected');
    expect(await handshake(peerPort)).toBe('refused');
  });
});

describe(`TLS flag errors (${TARGET})`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'pilothouse-tls-flags-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const run = (flags: string[]) => {
    const program = TARGET === 'etcd' ? [ETCD_BINARY] : [process.execPath, CLI_JS, 'etcd'];
    return spawnSync(program[0]!, [...program.slice(1), '--data-dir', join(dir, 'd'), ...flags], { encoding: 'utf8', timeout: 10_000 });
  };
  const peer = (scheme: string) => [
    '--listen-peer-urls', `${scheme}://127.0.0.1:25011`, '--initial-advertise-peer-urls', `${scheme}://127.0.0.1:25011`,
    '--initial-cluster', `default=${scheme}://127.0.0.1:25011`,
  ];
  const client = (scheme: string) => ['--listen-client-urls', `${scheme}://127.0.0.1:25010`, '--advertise-client-urls', `${scheme}://127.0.0.1:25010`];

  it('refuses an https client URL without --cert-file/--key-file', () => {
    const r = run([...client('https'), ...peer('http')]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('etcdmain: TLS key/cert (--cert-file, --key-file) must be provided for client url https://127.0.0.1:25010 with HTTPS scheme');
  });

  it('exits 1 naming a certificate file that does not exist', () => {
    const missing = join(dir, 'missing.crt');
    const r = run([...client('https'), ...peer('http'), '--cert-file', missing, '--key-file', join(dir, 'missing.key')]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`etcdmain: open ${missing}: no such file or directory`);
  });

  it('refuses an https peer URL without --peer-cert-file/--peer-key-file', () => {
    const r = run([...client('http'), ...peer('https')]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('etcdmain: cannot listen on TLS for 127.0.0.1:25011: KeyFile and CertFile are not presented');
  });
});
