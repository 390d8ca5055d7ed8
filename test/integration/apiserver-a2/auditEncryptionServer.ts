// startTestApiServer with patient timeouts, for the audit and encryption
// tests: on a box running many suites at once, three TLS members plus the
// API server can take well over the harness's 30 s to come up (each process
// alone spends seconds loading the bundle). Same layout, flags and runners
// as harness/apiserver.ts; stopAll() kills what these tests started.

import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiServerFlags, apiServerLayout, waitApiServerReady, writeKubeconfig } from '../../../main/common/cli/apiserverLayout';
import { MemberProcess } from '../../../main/console/memberProcess';
import { apiServerTestProgram, KUBECTL, run, type TestApiServer } from '../harness/apiserver';
import { reapClusters, startTestCluster } from '../harness/cluster';
import { ETCDCTL } from '../harness/etcdctl';

const READY_MS = 150_000;
const started: MemberProcess[] = [];

export async function startPatientApiServer(portBase: number, extraFlags: string[]): Promise<TestApiServer> {
  const tc = await startTestCluster('pilothouse', portBase, READY_MS, { tls: true });
  const layout = apiServerLayout(tc.dir, portBase, tc.cluster.layout.length, tc.cluster.pki!);
  const proc = new MemberProcess('apiserver', apiServerTestProgram(), apiServerFlags(layout, tc.cluster.layout, extraFlags), layout.logFile);
  started.push(proc);
  const home = join(tc.dir, 'home');
  mkdirSync(home, { recursive: true });
  const logTail = (lines = 40): string => (existsSync(layout.logFile) ? readFileSync(layout.logFile, 'utf8').split('\n').slice(-lines).join('\n') : '(no log)');
  const startAndWait = async (): Promise<void> => {
    proc.start();
    const ready = await waitApiServerReady(layout, READY_MS, () => proc.running);
    if (!ready.ok) throw new Error(`API server on ${layout.port} not ready: ${ready.why}\n${logTail()}`);
  };
  await startAndWait();
  writeKubeconfig(layout);
  const pki = tc.cluster.pki!;
  return {
    tc,
    layout,
    proc,
    home,
    logTail,
    kubectl: (args, opts = {}) => run(KUBECTL, args, { KUBECONFIG: layout.kubeconfig, HOME: home, ...opts.env }, opts),
    etcdctl: (args, opts = {}) =>
      run(ETCDCTL, [`--endpoints=${tc.cluster.layout.map((m) => m.clientUrl).join(',')}`, `--cacert=${pki.ca.cert}`, `--cert=${pki.client.cert}`, `--key=${pki.client.key}`, ...args], { ETCDCTL_API: '3', ...opts.env }, opts),
    async restart() {
      await proc.stop();
      await startAndWait();
    },
  };
}

/** SIGKILLs the API servers started here and every cluster of this test file. */
export async function stopAll(): Promise<void> {
  for (const p of started) p.kill('SIGKILL');
  await Promise.all(started.splice(0).map((p) => p.waitExit()));
  await reapClusters();
}
