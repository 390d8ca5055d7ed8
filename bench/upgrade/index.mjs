// `npm run bench -- upgrade [--runs N] [--objects N]`: a full rolling upgrade
// of the 3-member plane, as an operator runs it. A `pilothouse up` plane in a
// temp dir gets 1,000 ConfigMaps (created through the API server), a verified
// backup (`pilothouse backup save`), and then, for each run, this checkout
// built as the next minor version (run i upgrades to minor + i) and
// `pilothouse upgrade apply --to BUILD -w json` with its availability probe
// (10 writes/s through etcd and 10/s through the API server, each write
// verified afterwards), while a steady load of its own updates ConfigMaps
// through the API server (one at a time, one every 50 ms) and counts what
// failed. Reported per run: the total time, each component's time, the
// longest etcd write unavailability (the target: one election, about 1 s),
// the longest API server unavailability, failed and lost writes. Beside it,
// Puts every 20 ms through the etcd3 client (etcdWrites.mjs), and the same
// Puts through a rolling restart of Debian's etcd 3.4 members done as etcd's
// upgrade guide says: how long etcd itself is unavailable to writers.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:https';
import { performance } from 'node:perf_hooks';
import { kubeClient, startUp, stopUp } from '../apiserver/kube.mjs';
import { memberClients, pacedWrites, rollingRestart, writeLoop } from './etcdWrites.mjs';
import { pilothouse } from '../cli.mjs';
import { CLI_JS, fmt, root, withCluster, writeResults } from '../etcd/common.mjs';

const PORT_BASE = 19400;
const ETCD_BASE = 19460;

function option(args, name, dflt) {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
}

async function createObjects(k, n) {
  const ns = await k.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
  if (ns.code !== 201) throw new Error(`namespace: ${ns.code} ${ns.body}`);
  let next = 0;
  let errors = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const r = await k.call('POST', '/api/v1/namespaces/bench/configmaps', {
        apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${String(i).padStart(5, '0')}` }, data: { index: String(i), payload: 'x'.repeat(200) },
      });
      if (r.code !== 201) errors++;
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  if (errors > 0) throw new Error(`${errors} of ${n} creates failed`);
}

/** A merge patch with the admin identity of kubeClient's agent: {code}. */
function mergePatch(k, path, body, timeoutMs) {
  return new Promise((resolve) => {
    const data = JSON.stringify(body);
    const req = request(`${k.server}${path}`, { method: 'PATCH', agent: k.agent, timeout: timeoutMs, headers: { accept: 'application/json', 'content-type': 'application/merge-patch+json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ code: res.statusCode }));
      res.on('error', () => resolve({ code: 0 }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ code: 0 }));
    req.end(data);
  });
}

/** Updates ConfigMaps one at a time, one every 50 ms, until stopped: writes, failures and the longest run of failures. */
function steadyLoad(k, objects) {
  return pacedWrites(50, async (i) => (await mergePatch(k, `/api/v1/namespaces/bench/configmaps/cm-${String(i % objects).padStart(5, '0')}`, { data: { load: String(i) } }, 1_000)).code === 200);
}

function build(version, outDir) {
  execFileSync('npx', ['electron-vite', 'build', '--outDir', join(outDir, 'out')], { cwd: root, env: { ...process.env, PILOTHOUSE_BUILD_VERSION: version }, stdio: 'ignore', timeout: 300_000 });
  symlinkSync(join(root, 'node_modules'), join(outDir, 'node_modules'));
  symlinkSync(join(root, 'resources'), join(outDir, 'resources'));
}

export async function run(args) {
  const runs = option(args, '--runs', 1);
  const objects = option(args, '--objects', 1_000);
  const current = /^(\d+)\.(\d+)\.(\d+)/.exec(execFileSync(process.execPath, [CLI_JS, '--version'], { encoding: 'utf8' }));
  const [major, minor] = [Number(current[1]), Number(current[2])];
  const dir = mkdtempSync(join(tmpdir(), 'pilothouse-bench-upgrade-'));
  const builds = mkdtempSync(join(tmpdir(), 'pilothouse-bench-builds-'));
  const up = startUp(dir, PORT_BASE);
  const results = [];
  let clients = [];
  try {
    await up.ready;
    const deadline = Date.now() + 120_000;
    while (!/control plane ready/.test(up.output())) {
      if (Date.now() > deadline || up.child.exitCode !== null) throw new Error(`pilothouse up not usable:\n${up.output()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const k = kubeClient(dir, 16);
    const pki = (f) => readFileSync(join(dir, 'pki', f));
    clients = memberClients([0, 1, 2].map((m) => `https://127.0.0.1:${PORT_BASE + 2 * m}`), { rootCertificate: pki('ca.crt'), certChain: pki('client.crt'), privateKey: pki('client.key') });
    await createObjects(k, objects);
    process.stdout.write(`bench: ${objects} ConfigMaps created\n`);
    for (let i = 1; i <= runs; i++) {
      const version = `${major}.${minor + i}.0`;
      const target = join(builds, version);
      build(version, target);
      await pilothouse(['backup', 'save', '--data-dir', dir]);
      process.stdout.write(`bench: run ${i}: upgrading to ${version}\n`);
      const load = steadyLoad(k, objects);
      const puts = writeLoop(clients, `/bench/upgrade/${i}/`);
      let loadReport;
      let putsReport;
      const applied = await pilothouse(['upgrade', 'apply', '--data-dir', dir, '--to', target, '--timeout', '2m', '-w', 'json'], 900_000).finally(async () => {
        loadReport = await load.stop();
        putsReport = await puts.stop();
      });
      const report = JSON.parse(applied.stdout);
      const a = report.availability;
      results.push({
        version,
        wallSeconds: applied.seconds,
        durationMs: report.durationMs,
        components: report.components.map((c) => ({ id: c.id, ms: c.ms, outcome: c.outcome })),
        etcd: { writes: a.etcd.writes, failed: a.etcd.failedCount, longestMs: a.etcd.longestUnavailableMs, lost: a.etcd.lost },
        apiserver: { writes: a.apiserver.writes, failed: a.apiserver.failedCount, longestMs: a.apiserver.longestUnavailableMs, lost: a.apiserver.lost },
        load: loadReport,
        puts: putsReport,
      });
      process.stdout.write(`bench: run ${i}: ${fmt(report.durationMs / 1000, 1)} s; etcd longest ${a.etcd.longestUnavailableMs} ms, API server longest ${a.apiserver.longestUnavailableMs} ms\n`);
    }
  } finally {
    for (const c of clients) c.close();
    await stopUp(up, 30_000);
    rmSync(dir, { recursive: true, force: true });
    rmSync(builds, { recursive: true, force: true });
  }
  const reference = [];
  if (existsSync('/usr/bin/etcd')) {
    await withCluster('etcd', ETCD_BASE, async (cluster) => {
      const ref = memberClients(cluster.endpoints);
      try {
        for (let i = 1; i <= runs; i++) {
          const puts = writeLoop(ref, `/bench/upgrade/${i}/`);
          const t0 = performance.now();
          let members;
          try {
            members = await rollingRestart(cluster);
          } finally {
            reference.push({ seconds: (performance.now() - t0) / 1000, members, puts: await puts.stop() });
          }
          process.stdout.write(`bench: etcd 3.4 rolling restart ${i}: longest Put failure run ${fmt(reference.at(-1).puts.longestMs, 0)} ms\n`);
        }
      } finally {
        for (const c of ref) c.close();
      }
    });
  }
  const rows = results.map(
    (r, i) =>
      `| ${i + 1} → ${r.version} | ${fmt(r.durationMs / 1000, 1)} | ${r.components.map((c) => `${c.id} ${fmt(c.ms / 1000, 1)}`).join(', ')} | ${r.etcd.longestMs} (${r.etcd.failed}/${r.etcd.writes} failed, ${r.etcd.lost} lost) | ${r.apiserver.longestMs} (${r.apiserver.failed}/${r.apiserver.writes} failed, ${r.apiserver.lost} lost) | ${fmt(r.load.longestMs, 0)} (${r.load.failed}/${r.load.writes} failed) |`,
  );
  const md = [
    `# rolling upgrade benchmark ${new Date().toISOString()}`,
    '',
    `A \`pilothouse up\` plane (3 members, API server, controllers, 3 nodes) holding ${objects} ConfigMaps; each run builds this checkout as the next minor version and runs \`pilothouse upgrade apply --to BUILD\` (members followers first, the leader last after move-leader, then the API server, the controllers and each node). The apply's probe writes 10/s through etcd and 10/s through the API server and verifies every acknowledged write afterwards; beside it a steady load updates ConfigMaps through the API server every 50 ms. Target for etcd writes: unavailable no longer than one election (≈ 1 s).`,
    '',
    '| run | total (s) | per component (s) | etcd longest unavailability (ms) | API server longest unavailability (ms) | steady load longest failure (ms) |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
    `Side by side: a Put every 20 ms through the etcd3 client (one client per member, moving to the next member after a failure, each Put bounded by 1 s) during the members' turn — Pilothouse during \`upgrade apply\` (which also replaces the API server and controllers), Debian's etcd 3.4 during the same rolling restart done by hand (followers first, \`etcdctl move-leader\`, the leader last, each member waited for until healthy and caught up).`,
    '',
    '| run | Pilothouse: Puts failed | Pilothouse: longest failure run (ms) | etcd 3.4: Puts failed | etcd 3.4: longest failure run (ms) | etcd 3.4 rolling restart (s) |',
    '|---|---|---|---|---|---|',
    ...results.map((r, i) => {
      const ref = reference[i];
      return `| ${i + 1} | ${r.puts.failed}/${r.puts.writes} | ${fmt(r.puts.longestMs, 0)} | ${ref ? `${ref.puts.failed}/${ref.puts.writes}` : '–'} | ${ref ? fmt(ref.puts.longestMs, 0) : '–'} | ${ref ? fmt(ref.seconds, 1) : '–'} |`;
    }),
    '',
  ].join('\n');
  writeResults('upgrade', { objects, runs: results, etcdReference: reference }, md);
}
