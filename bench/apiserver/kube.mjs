// Shared by the API server and lifecycle benchmarks: a `pilothouse up`
// control plane in a temp dir, and a small HTTPS client with its admin identity.

import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Etcd3 } from 'etcd3';
import { parse } from 'yaml';
import { CLI_JS } from '../etcd/common.mjs';

const PROFILER = fileURLToPath(new URL('./cpuProfile.cjs', import.meta.url));

/**
 * `pilothouse up` of the build cliJs (default: this checkout's) in dir on portBase (extra flags appended); ready once the API server is and DIR/kubeconfig exists.
 * BENCH_PROFILE=DIR profiles the API server process (cpuProfile.cjs, DIR/apiserver-<pid>.cpuprofile), for profiling before optimizing.
 */
export function startUp(dir, portBase, extra = [], cliJs = CLI_JS) {
  const profileDir = process.env.BENCH_PROFILE;
  const env = profileDir ? { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${PROFILER}`.trim() } : process.env;
  const child = spawn(process.execPath, [cliJs, 'up', '--data-dir', dir, '--port-base', String(portBase), ...extra], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const ready = new Promise((resolve, reject) => {
    const deadline = Date.now() + 180_000; // a loaded shared machine starts slowly
    const timer = setInterval(() => {
      if (/API server ready|apiserver ready/i.test(out) && existsSync(join(dir, 'kubeconfig'))) {
        clearInterval(timer);
        resolve();
      } else if (child.exitCode !== null || Date.now() > deadline) {
        clearInterval(timer);
        reject(new Error(`pilothouse up did not become ready:\n${out}`));
      }
    }, 100);
  });
  return { child, ready, output: () => out };
}

/** SIGTERM to `up` (it stops its children in order), SIGKILL after graceMs; resolves once it has exited. */
export function stopUp(up, graceMs) {
  up.child.kill('SIGTERM');
  return new Promise((r) => {
    const t = setTimeout(() => (up.child.kill('SIGKILL'), r()), graceMs);
    up.child.once('exit', () => (clearTimeout(t), r()));
  });
}

/**
 * A keep-alive HTTPS client with DIR/kubeconfig's admin identity: call(method, path, body) → {code, body}.
 * With `{ chunks: true }` the body comes back as the chunks received (no joining: a timed
 * 20 MB list then ends with its last byte, not with the client's copy of it).
 */
export function kubeClient(dir, maxSockets) {
  const kc = parse(readFileSync(join(dir, 'kubeconfig'), 'utf8'));
  const b = (s) => Buffer.from(s, 'base64');
  const agent = new Agent({
    keepAlive: true,
    maxSockets,
    ca: b(kc.clusters[0].cluster['certificate-authority-data']),
    cert: b(kc.users[0].user['client-certificate-data']),
    key: b(kc.users[0].user['client-key-data']),
  });
  const server = kc.clusters[0].cluster.server;
  const call = (method, path, body, opts = {}) =>
    new Promise((resolve, reject) => {
      const data = body === undefined ? undefined : JSON.stringify(body);
      const req = request(`${server}${path}`, { method, agent, headers: { accept: 'application/json', ...(data ? { 'content-type': 'application/json' } : {}) } }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ code: res.statusCode, body: opts.chunks ? chunks : Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(data);
    });
  return { call, agent, server };
}

/** The etcd3 client of the plane's three members with DIR/pki's etcdctl identity (raw puts: the ceiling of a create). */
export function etcdClient(dir, portBase) {
  return new Etcd3({
    hosts: [0, 1, 2].map((i) => `https://127.0.0.1:${portBase + 2 * i}`),
    credentials: {
      rootCertificate: readFileSync(join(dir, 'pki', 'ca.crt')),
      certChain: readFileSync(join(dir, 'pki', 'client.crt')),
      privateKey: readFileSync(join(dir, 'pki', 'client.key')),
    },
  });
}
