// A 3-member cluster started the way an operator starts etcd by hand (static
// --initial-cluster on 127.0.0.1), for the start-up benchmark's side-by-side
// figures: Debian's etcd 3.4 or `pilothouse etcd` with the same flags, plain
// or with mutual TLS (the certificates of a `pilothouse up` PKI, which names
// members m1..m3 and 127.0.0.1). Timed from the first spawn until every member
// answers a linearizable read (POST /v3/kv/range on its client URL, what
// etcdctl get does), confirmed by `etcdctl endpoint health` once ready.

import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CLI_JS } from '../etcd/common.mjs';
import { cpuMsOf, reapOrphans, spawnTimed, stopTimed } from './timedProcess.mjs';

const ETCDCTL = '/usr/bin/etcdctl';
const POLL_MS = 20;

export const PROGRAMS = {
  etcd: { command: '/usr/bin/etcd', args: [], env: {} },
  pilothouse: { command: process.execPath, args: [CLI_JS, 'etcd'], env: { ELECTRON_RUN_AS_NODE: '1' } },
};

export function clusterMembers(base, tls) {
  const scheme = tls ? 'https' : 'http';
  return [1, 2, 3].map((i) => ({
    name: `m${i}`,
    client: `${scheme}://127.0.0.1:${base + 2 * (i - 1)}`,
    peer: `${scheme}://127.0.0.1:${base + 2 * (i - 1) + 1}`,
  }));
}

function memberArgs(m, members, dataDir, pkiDir, token) {
  const tls = pkiDir
    ? [
        '--cert-file', join(pkiDir, m.name, 'server.crt'), '--key-file', join(pkiDir, m.name, 'server.key'),
        '--trusted-ca-file', join(pkiDir, 'ca.crt'), '--client-cert-auth',
        '--peer-cert-file', join(pkiDir, m.name, 'peer.crt'), '--peer-key-file', join(pkiDir, m.name, 'peer.key'),
        '--peer-trusted-ca-file', join(pkiDir, 'ca.crt'), '--peer-client-cert-auth',
      ]
    : [];
  return [
    '--name', m.name, '--data-dir', join(dataDir, m.name),
    '--listen-client-urls', m.client, '--advertise-client-urls', m.client,
    '--listen-peer-urls', m.peer, '--initial-advertise-peer-urls', m.peer,
    '--initial-cluster', members.map((x) => `${x.name}=${x.peer}`).join(','),
    '--initial-cluster-state', 'new', '--initial-cluster-token', token,
    ...tls,
  ];
}

/** A linearizable range of one key on url; resolves on a 200, rejects otherwise. */
function rangeOnce(url, agent, timeoutMs) {
  const request = url.startsWith('https:') ? httpsRequest : httpRequest;
  const body = JSON.stringify({ key: Buffer.from('health').toString('base64') });
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v3/kv/range`, { method: 'POST', agent, timeout: timeoutMs, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Starts the 3 members (dataDir/m1..m3; existing data dirs resume), times
 * each member's first linearizable read from the first spawn, checks
 * `etcdctl endpoint health`, then stops them (SIGTERM, reaped by PID).
 * Resolves with {readyMs, memberReadyMs: [..], cpuMs (of the 3 at ready), healthOk, stop}.
 */
export async function timeCluster(impl, dataDir, base, { pkiDir, boundMs = 30_000 } = {}) {
  const program = PROGRAMS[impl];
  const members = clusterMembers(base, Boolean(pkiDir));
  const t0 = performance.now();
  const procs = members.map((m) => spawnTimed(program.command, [...program.args, ...memberArgs(m, members, dataDir, pkiDir, `bench-startup-${impl}`)], program.env));
  const tlsOpts = pkiDir
    ? { ca: readFileSync(join(pkiDir, 'ca.crt')), cert: readFileSync(join(pkiDir, 'client.crt')), key: readFileSync(join(pkiDir, 'client.key')) }
    : {};
  const agent = pkiDir ? new HttpsAgent({ keepAlive: true, ...tlsOpts }) : new HttpAgent({ keepAlive: true });
  try {
    const deadline = Date.now() + boundMs;
    const memberReadyMs = await Promise.all(
      members.map(async (m, i) => {
        for (;;) {
          try {
            await rangeOnce(m.client, agent, 500);
            return performance.now() - t0;
          } catch (err) {
            const exit = procs[i].exitInfo();
            if (exit) throw new Error(`${impl} ${m.name} exited (${exit.code ?? exit.signal}):\n${procs[i].lines.slice(-8).map((l) => l.text).join('\n')}`);
            if (Date.now() > deadline) throw new Error(`${impl} ${m.name} answered no read within ${boundMs} ms: ${err.message}`);
            await new Promise((r) => setTimeout(r, POLL_MS));
          }
        }
      }),
    );
    const cpuMs = procs.reduce((a, p) => a + cpuMsOf(p.pid), 0);
    const healthOk = await endpointHealth(members, pkiDir);
    const stops = await Promise.all(procs.map((p) => stopTimed(p)));
    return { readyMs: Math.max(...memberReadyMs), memberReadyMs, cpuMs, healthOk, stop: { graceful: stops.every((s) => s.graceful), ms: Math.max(...stops.map((s) => s.ms)) } };
  } finally {
    agent.destroy();
    await Promise.all(procs.map((p) => stopTimed(p)));
    await reapOrphans(procs.map((p) => p.pid));
  }
}

/** `etcdctl endpoint health` against every member: true when each one is healthy. */
async function endpointHealth(members, pkiDir) {
  const tls = pkiDir ? ['--cacert', join(pkiDir, 'ca.crt'), '--cert', join(pkiDir, 'client.crt'), '--key', join(pkiDir, 'client.key')] : [];
  try {
    const { stdout, stderr } = await promisify(execFile)(ETCDCTL, ['endpoint', 'health', '--endpoints', members.map((m) => m.client).join(','), ...tls], {
      env: { ...process.env, ETCDCTL_API: '3' },
      timeout: 10_000,
    });
    return (stdout + stderr).split('\n').filter((l) => /is healthy/.test(l)).length === members.length;
  } catch {
    return false;
  }
}
