// How a local cluster runs its API server: where it listens (the first port
// after the members' — portBase + 2·members), its flags (kube-apiserver's
// names, pointing at the members and at the PKI under DIR/pki), its log
// file, the kubeconfig at DIR/kubeconfig, and a readiness probe (/readyz
// with the admin client certificate). `pilothouse up` and the console's
// supervisor both start it this way.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { createSecureContext } from 'node:tls';
import { join } from 'node:path';
import type { MemberLayout } from './localCluster';
import type { Program } from './program';
import { writeWhole, type ClusterPki } from '../common/pki/clusterPki';
import { ensureKubePki, type KubePki } from '../common/pki/kubePki';

export interface ApiServerLayout {
  port: number;
  host: string;
  /** https://127.0.0.1:<port> */
  url: string;
  logFile: string;
  /** DIR/logs/audit.log: audit.k8s.io/v1 Events as JSON lines. */
  auditLogFile: string;
  /** DIR/audit-policy.yaml (written with DEFAULT_AUDIT_POLICY when missing; the user may edit it). */
  auditPolicyFile: string;
  kubeconfig: string;
  pki: KubePki;
}

/** The API server's place in a cluster laid out from portBase with `members` members. */
export async function apiServerLayout(dataDir: string, portBase: number, members: number, etcdPki: ClusterPki, host = '127.0.0.1'): Promise<ApiServerLayout> {
  const port = portBase + 2 * members;
  const pki = await ensureKubePki(etcdPki);
  const auditPolicyFile = join(dataDir, 'audit-policy.yaml');
  if (!existsSync(auditPolicyFile)) writeFileSync(auditPolicyFile, DEFAULT_AUDIT_POLICY);
  return {
    port,
    host,
    url: `https://${host}:${port}`,
    logFile: join(dataDir, 'logs', 'apiserver.log'),
    auditLogFile: join(dataDir, 'logs', 'audit.log'),
    auditPolicyFile,
    kubeconfig: join(dataDir, 'kubeconfig'),
    pki,
  };
}

/**
 * The audit policy a local cluster starts with: every request at Metadata
 * (who, what, which object, the decision), without the RequestReceived stage;
 * nothing for health probes and for the nodes' and components' Lease
 * renewals (a heartbeat every few seconds per node would drown the rest).
 */
export const DEFAULT_AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/livez*", "/readyz*", "/version"]
- level: None
  verbs: ["get", "update"]
  resources:
  - group: coordination.k8s.io
    resources: ["leases"]
- level: Metadata
`;

/**
 * kube-apiserver's security settings as kubeadm sets them: RBAC with the
 * Node authorizer, service-account tokens signed with DIR/pki/kube/sa.key,
 * the audit log, kube's default admission plugins (on without flags) plus
 * NodeRestriction, so a kubelet may write only its own Node, Lease and pods.
 */
export function securityFlags(layout: ApiServerLayout): string[] {
  return [
    '--authorization-mode=Node,RBAC',
    '--enable-admission-plugins=NodeRestriction',
    `--service-account-key-file=${layout.pki.serviceAccount.pub}`,
    `--service-account-signing-key-file=${layout.pki.serviceAccount.key}`,
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--audit-policy-file=${layout.auditPolicyFile}`,
    `--audit-log-path=${layout.auditLogFile}`,
    '--audit-log-maxsize=100',
    '--audit-log-maxbackup=3',
  ];
}

/**
 * V8's young generation for the API server: 32 MB semi-spaces instead of 16.
 * Under 64 concurrent pod creates its main thread spent ~12 % of its time in
 * scavenges, each copying the newest cached pods and the requests in flight;
 * with half as many scavenges more of that is garbage by then. Measured
 * side by side (8 runs, 2 cores): +7 % creates/s on average at 32 MB; 64 MB
 * was no better than 16.
 */
export const API_SERVER_V8_FLAGS = ['--max-semi-space-size=32'];

/** `pilothouse apiserver` run by this same program (see selfProgram in planePrograms.ts). */
export function apiServerProgram(cliPath: string): Program {
  return { command: process.execPath, args: [...API_SERVER_V8_FLAGS, cliPath, 'apiserver'], env: { ELECTRON_RUN_AS_NODE: '1' } };
}

export function apiServerFlags(layout: ApiServerLayout, members: MemberLayout[], extra: string[] = []): string[] {
  const pki = layout.pki;
  return [
    `--etcd-servers=${members.map((m) => m.clientUrl).join(',')}`,
    `--etcd-cafile=${pki.etcdCa}`,
    `--etcd-certfile=${pki.apiserverEtcdClient.cert}`,
    `--etcd-keyfile=${pki.apiserverEtcdClient.key}`,
    `--bind-address=${layout.host}`,
    `--secure-port=${layout.port}`,
    `--tls-cert-file=${pki.apiserver.cert}`,
    `--tls-private-key-file=${pki.apiserver.key}`,
    `--client-ca-file=${pki.ca.cert}`,
    ...securityFlags(layout),
    ...extra,
  ];
}

/** DIR/kubeconfig: one cluster, one admin user (client certificate), one current context; certificates embedded. */
export function kubeconfigYaml(layout: ApiServerLayout, clusterName = 'pilothouse'): string {
  const b64 = (path: string) => readFileSync(path).toString('base64');
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- cluster:',
    `    certificate-authority-data: ${b64(layout.pki.ca.cert)}`,
    `    server: ${layout.url}`,
    `  name: ${clusterName}`,
    'contexts:',
    '- context:',
    `    cluster: ${clusterName}`,
    '    user: admin',
    `  name: admin@${clusterName}`,
    `current-context: admin@${clusterName}`,
    'preferences: {}',
    'users:',
    '- name: admin',
    '  user:',
    `    client-certificate-data: ${b64(layout.pki.admin.cert)}`,
    `    client-key-data: ${b64(layout.pki.admin.key)}`,
    '',
  ].join('\n');
}

export function writeKubeconfig(layout: ApiServerLayout): string {
  writeWhole(layout.kubeconfig, kubeconfigYaml(layout), 0o600);
  return layout.kubeconfig;
}

/**
 * One keep-alive agent per API server URL and admin credentials: a start
 * probes /readyz every 50 ms, and a fresh TLS context and handshake per probe
 * cost both `up` and the API server CPU while every process boots at once.
 * Replaced when the files change (certificates renewed).
 */
const readyzAgents = new Map<string, { pem: string; agent: Agent }>();

function readyzAgent(layout: ApiServerLayout): Agent {
  const ca = readFileSync(layout.pki.ca.cert);
  const cert = readFileSync(layout.pki.admin.cert);
  const key = readFileSync(layout.pki.admin.key);
  const pem = `${ca}\n${cert}\n${key}`;
  const cached = readyzAgents.get(layout.url);
  if (cached?.pem === pem) return cached.agent;
  cached?.agent.destroy();
  // One socket is all a probe needs; an idle one is not kept past the probes.
  // The context made once: while the server is not listening yet every probe opens a new socket.
  const agent = new Agent({ keepAlive: true, keepAliveMsecs: 1000, maxSockets: 1, secureContext: createSecureContext({ ca, cert, key }), timeout: 5000 });
  readyzAgents.set(layout.url, { pem, agent });
  return agent;
}

/** GET /readyz with the admin certificate; resolves with the status code or rejects on a connection error. */
export function probeReadyz(layout: ApiServerLayout, timeoutMs = 2000): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${layout.url}/readyz`, { agent: readyzAgent(layout), timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy(new Error('readyz timed out')));
    req.on('error', reject);
    req.end();
  });
}

/** Polls /readyz until it answers 200 or the deadline passes; returns the last error text on failure. */
export async function waitApiServerReady(layout: ApiServerLayout, timeoutMs: number, alive: () => boolean = () => true): Promise<{ ok: true } | { ok: false; why: string }> {
  const deadline = Date.now() + timeoutMs;
  let why = 'no answer yet';
  while (Date.now() < deadline) {
    if (!alive()) return { ok: false, why: 'the API server exited' };
    try {
      const code = await probeReadyz(layout);
      if (code === 200) return { ok: true };
      why = `/readyz answered ${code}`;
    } catch (err) {
      why = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { ok: false, why };
}
