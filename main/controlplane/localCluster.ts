// A local N-member etcd-compatible cluster: the layout (names, ports, data
// dirs), the etcd flags each member gets, and the processes (each a
// SupervisedProcess that is never restarted, its output appended to
// DIR/logs/<name>.log). The tests run members with it; the orchestrator
// (supervisor.ts) reuses its layout and flags. The member
// program is a parameter, so the same code runs Pilothouse members or
// Debian's /usr/bin/etcd (the integration tests run both).
//
// Port layout — every port lies in [portBase, portBase + 2N - 1]:
//   member i (1-based): client port portBase + 2(i-1), peer port portBase + 2(i-1) + 1
//   portBase 2379 → m1 2379/2380 (etcd's defaults), m2 2381/2382, m3 2383/2384.
//
// With `tls`, clients and peers speak https with mutual TLS, using the PKI
// under DIR/pki (main/common/pki, created once): each member gets etcd's
// --cert-file/--key-file/--trusted-ca-file/--client-cert-auth and the --peer-*
// equivalents, and etcdctl.env names the CA and client certificate.
//
// Restarting on the same data dir resumes the cluster: the flags are the same
// ("--initial-cluster-state new" included) and etcd, like Pilothouse, ignores
// the initial-cluster flags once a member has a WAL.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Program } from './program';
import { STOP_GRACE_MS, SupervisedProcess } from './supervisedProcess';
import { waitForLinearizableReads, type ProbeTls } from './etcdReadProbe';
import { clusterPkiPaths, ensureClusterPki, privateDir, writeWhole, type ClusterPki } from '../common/pki/clusterPki';
import { renewExpiring, RENEW_WITHIN_DAYS } from '../common/pki/renewal';

export interface LocalClusterOptions {
  dataDir: string;
  members?: number;
  portBase?: number;
  program: Program;
  /** Extra etcd flags for every member (e.g. --heartbeat-interval). */
  extraFlags?: string[];
  host?: string;
  clusterToken?: string;
  /** https client and peer URLs with client-certificate auth, PKI under DIR/pki. */
  tls?: boolean;
}

export interface MemberLayout {
  name: string;
  dataDir: string;
  clientUrl: string;
  peerUrl: string;
  /** "host:port", what etcdctl --endpoints takes. */
  endpoint: string;
  logFile: string;
}

export const MAX_MEMBERS = 49;

export function clusterLayout(opts: LocalClusterOptions): MemberLayout[] {
  const n = opts.members ?? 3;
  const base = opts.portBase ?? 2379;
  const host = opts.host ?? '127.0.0.1';
  const scheme = opts.tls ? 'https' : 'http';
  if (!Number.isInteger(n) || n < 1 || n > MAX_MEMBERS) throw new Error(`--members must be 1..${MAX_MEMBERS}, got ${n}`);
  if (!Number.isInteger(base) || base < 1024 || base + 2 * n > 65535) {
    throw new Error(`--port-base must leave room for ${2 * n} ports in 1024..65535, got ${base}`);
  }
  return Array.from({ length: n }, (_, i) => {
    const name = `m${i + 1}`;
    const clientPort = base + 2 * i;
    return {
      name,
      dataDir: join(opts.dataDir, name),
      clientUrl: `${scheme}://${host}:${clientPort}`,
      peerUrl: `${scheme}://${host}:${clientPort + 1}`,
      endpoint: `${host}:${clientPort}`,
      logFile: join(opts.dataDir, 'logs', `${name}.log`),
    };
  });
}

/** The etcd command line for one member of the layout. */
export function memberFlags(member: MemberLayout, layout: MemberLayout[], opts: LocalClusterOptions): string[] {
  return [
    '--name', member.name,
    '--data-dir', member.dataDir,
    '--listen-client-urls', member.clientUrl,
    '--advertise-client-urls', member.clientUrl,
    '--listen-peer-urls', member.peerUrl,
    '--initial-advertise-peer-urls', member.peerUrl,
    '--initial-cluster', layout.map((m) => `${m.name}=${m.peerUrl}`).join(','),
    '--initial-cluster-state', 'new',
    '--initial-cluster-token', opts.clusterToken ?? 'pilothouse-local',
    ...(opts.tls ? memberTlsFlags(member, pkiFor(opts, layout)) : []),
    ...(opts.extraFlags ?? []),
  ];
}

/** Where the cluster's PKI lives: DIR/pki. */
export function pkiFor(opts: LocalClusterOptions, layout: MemberLayout[]): ClusterPki {
  return clusterPkiPaths(join(opts.dataDir, 'pki'), layout.map((m) => m.name));
}

function memberTlsFlags(member: MemberLayout, pki: ClusterPki): string[] {
  const own = pki.members.get(member.name)!;
  return [
    '--cert-file', own.server.cert,
    '--key-file', own.server.key,
    '--trusted-ca-file', pki.ca.cert,
    '--client-cert-auth',
    '--peer-cert-file', own.peer.cert,
    '--peer-key-file', own.peer.key,
    '--peer-trusted-ca-file', pki.ca.cert,
    '--peer-client-cert-auth',
  ];
}

/** The shell snippet `source DIR/etcdctl.env` reads. */
export function etcdctlEnv(layout: MemberLayout[], pki?: ClusterPki): string {
  if (pki === undefined) {
    return ['export ETCDCTL_API=3', `export ETCDCTL_ENDPOINTS=${layout.map((m) => m.endpoint).join(',')}`, ''].join('\n');
  }
  return [
    'export ETCDCTL_API=3',
    `export ETCDCTL_ENDPOINTS=${layout.map((m) => m.clientUrl).join(',')}`,
    `export ETCDCTL_CACERT=${shellWord(pki.ca.cert)}`,
    `export ETCDCTL_CERT=${shellWord(pki.client.cert)}`,
    `export ETCDCTL_KEY=${shellWord(pki.client.key)}`,
    '',
  ].join('\n');
}

/** A path as one POSIX shell word (quoted only when it needs to be). */
function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export class LocalCluster {
  readonly layout: MemberLayout[];
  readonly members: Map<string, SupervisedProcess>;

  constructor(readonly opts: LocalClusterOptions) {
    this.layout = clusterLayout(opts);
    this.members = new Map(
      this.layout.map((m) => [
        m.name,
        new SupervisedProcess({ id: m.name, kind: 'etcd', url: m.clientUrl, program: opts.program, args: memberFlags(m, this.layout, opts), logFile: m.logFile, restart: 'never' }),
      ]),
    );
  }

  get endpoints(): string[] {
    return this.layout.map((m) => m.endpoint);
  }

  /** The PKI's paths (DIR/pki), when the cluster runs with TLS. */
  get pki(): ClusterPki | undefined {
    return this.opts.tls ? pkiFor(this.opts, this.layout) : undefined;
  }

  get envFile(): string {
    return join(this.opts.dataDir, 'etcdctl.env');
  }

  member(name: string): SupervisedProcess {
    const m = this.members.get(name);
    if (!m) throw new Error(`no member ${name}`);
    return m;
  }

  /**
   * Starts every member that is not running and writes DIR/etcdctl.env;
   * with TLS, first makes what is missing of the PKI and renews certificates
   * that expire within RENEW_WITHIN_DAYS (resolves with their names).
   */
  async start(): Promise<string[]> {
    privateDir(this.opts.dataDir);
    const pki = this.pki && (await ensureClusterPki(this.pki.dir, this.layout.map((m) => m.name)));
    const renewed = pki ? await renewExpiring(this.opts.dataDir, RENEW_WITHIN_DAYS) : [];
    writeWhole(this.envFile, etcdctlEnv(this.layout, pki), 0o600);
    for (const m of this.members.values()) if (!m.running) m.start();
    return renewed;
  }

  /** Resolves true once every member answers a linearizable read. */
  async waitReady(timeoutMs: number): Promise<{ ok: boolean; lastErrors: Map<string, string> }> {
    return waitForLinearizableReads(this.endpoints, timeoutMs, undefined, this.probeTls());
  }

  /** The client certificate the readiness probe presents (CA, cert, key), when the cluster runs with TLS. */
  probeTls(): ProbeTls | undefined {
    const pki = this.pki;
    if (pki === undefined) return undefined;
    return { ca: readFileSync(pki.ca.cert), cert: readFileSync(pki.client.cert), key: readFileSync(pki.client.key) };
  }

  /** SIGTERM every member at once, SIGKILL stragglers after graceMs. */
  async stop(graceMs = STOP_GRACE_MS): Promise<void> {
    await Promise.all([...this.members.values()].map((m) => m.stop(graceMs)));
  }

  /** SIGKILL every member (tests' last resort). */
  killAll(): void {
    for (const m of this.members.values()) void m.kill('SIGKILL');
  }
}
