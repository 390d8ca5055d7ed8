// Runs Debian's etcdctl 3.4 (ETCDCTL_API=3) as an operator would, capturing
// stdout, stderr and the exit code. Every run is bounded by a timeout.

import { spawn } from 'node:child_process';

export const ETCDCTL = '/usr/bin/etcdctl';

export interface CtlResult {
  stdout: string;
  stderr: string;
  code: number | null;
}

export interface CtlOptions {
  endpoints: string[];
  stdin?: string;
  timeoutMs?: number;
}

export function etcdctl(args: string[], opts: CtlOptions): Promise<CtlResult> {
  // etcdctl refuses a flag that an ETCDCTL_* variable also sets.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ETCDCTL_')));
  const child = spawn(ETCDCTL, [`--endpoints=${opts.endpoints.join(',')}`, ...args], {
    env: { ...env, ETCDCTL_API: '3' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  // Most commands never read stdin and may exit before we finish writing it:
  // the resulting EPIPE is expected, not a failure.
  child.stdin.on('error', () => {});
  child.stdin.end(opts.stdin ?? '');
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 15_000);
  return new Promise((resolve) => {
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code });
    });
  });
}

/** JSON.parse that keeps 64-bit ids (cluster_id, member_id, leader) exact, as strings. */
export function parseJsonWithBigIds(text: string): unknown {
  return JSON.parse(text.replace(/([:\[,]\s*)(\d{16,})(?=\s*[,}\]])/g, '$1"$2"'));
}

export interface EndpointStatus {
  endpoint: string;
  memberId: string;
  leader: string;
  raftTerm: string;
  revision: string;
}

/** `endpoint status -w json` for the given endpoints (one line per reachable endpoint). */
export async function endpointStatus(endpoints: string[]): Promise<EndpointStatus[]> {
  const r = await etcdctl(['endpoint', 'status', '-w', 'json', '--command-timeout=2s'], { endpoints });
  if (r.stdout.trim() === '') return [];
  const rows = parseJsonWithBigIds(r.stdout) as Array<{
    Endpoint: string;
    Status: { header: { member_id: string | number; raft_term: number; revision: number }; leader: string | number; raftTerm: number };
  }>;
  return rows.map((row) => ({
    endpoint: row.Endpoint,
    memberId: String(row.Status.header.member_id),
    leader: String(row.Status.leader),
    raftTerm: String(row.Status.raftTerm),
    revision: String(row.Status.header.revision),
  }));
}
