// `npm run bench -- drill` (also run after `npm run bench -- snapshot`): the
// restore drill's RTO and the disaster recovery's time for a plane holding
// BENCH_OBJECTS (10,000) Kubernetes objects. A `pilothouse up` plane in a
// temp dir gets that many ConfigMaps in namespace "bench", created through
// the API server (POSTs, 32 in flight: real objects, protobuf in etcd as
// kube-apiserver stores them); that setup is timed apart. Then, each with
// the CLI an operator would use:
//   - `pilothouse backup save --out FILE` (wall time);
//   - `pilothouse backup drill FILE -w json`: wall time, and the drill's own
//     RTO (restore start → every resource listed by the scratch API server),
//     split into restore, serve (members + /readyz) and list;
//   - `pilothouse backup restore FILE --yes`: wall time, and per step (stop,
//     restore, members serving, API server and controllers usable);
// and afterwards the restored plane must list all the objects again.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startUp, kubeClient } from '../apiserver/kube.mjs';
import { pilothouse } from '../cli.mjs';
import { fmt, writeResults } from '../etcd/common.mjs';

const PORT_BASE = 27600;
const SCRATCH_BASE = 27650;

const cli = pilothouse;

async function createObjects(k, n) {
  const ns = await k.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
  if (ns.code !== 201) throw new Error(`namespace: ${ns.code} ${ns.body}`);
  let next = 0;
  let errors = 0;
  const start = performance.now();
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const r = await k.call('POST', '/api/v1/namespaces/bench/configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `cm-${String(i).padStart(5, '0')}`, labels: { bench: 'drill' } },
        data: { index: String(i), payload: 'x'.repeat(200) },
      });
      if (r.code !== 201) errors++;
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  return { seconds: (performance.now() - start) / 1000, errors };
}

async function countObjects(k) {
  let n = 0;
  let cont = '';
  do {
    const r = await k.call('GET', `/api/v1/namespaces/bench/configmaps?labelSelector=bench%3Ddrill&limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
    if (r.code !== 200) throw new Error(`list: ${r.code} ${r.body}`);
    const page = JSON.parse(r.body);
    n += page.items.length;
    cont = page.metadata.continue ?? '';
  } while (cont);
  return n;
}

const stepSeconds = (step) => (step.startedAt && step.endedAt ? (Date.parse(step.endedAt) - Date.parse(step.startedAt)) / 1000 : NaN);

export async function run() {
  const objects = Number(process.env.BENCH_OBJECTS ?? 10_000);
  const dir = mkdtempSync(join(tmpdir(), 'pilothouse-bench-drill-'));
  const up = startUp(dir, PORT_BASE);
  let hostPid;
  try {
    await up.ready;
    const deadline = Date.now() + 120_000;
    while (!/control plane ready/.test(up.output())) {
      if (Date.now() > deadline || up.child.exitCode !== null) throw new Error(`pilothouse up not usable:\n${up.output()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const k = kubeClient(dir, 32);
    const setup = await createObjects(k, objects);
    process.stdout.write(`bench: created ${objects} ConfigMaps in ${fmt(setup.seconds, 1)} s (${fmt(objects / setup.seconds, 0)}/s), ${setup.errors} errors\n`);
    const file = join(dir, 'snapshots', 'bench.db');
    const save = await cli(['backup', 'save', '--data-dir', dir, '--out', file]);
    process.stdout.write(`bench: backup save ${fmt(save.seconds, 2)} s\n`);

    const drill = await cli(['backup', 'drill', file, '--data-dir', dir, '-w', 'json', '--port-base', String(SCRATCH_BASE)]);
    const report = JSON.parse(drill.stdout);
    if (report.verdict !== 'restorable') throw new Error(`drill: ${report.reason}`);
    const listed = report.resources.find((r) => r.name === 'configmaps')?.items;
    process.stdout.write(`bench: drill ${fmt(drill.seconds, 2)} s wall, RTO ${report.rtoMs} ms (${listed} configmaps listed)\n`);

    const restore = await cli(['backup', 'restore', file, '--data-dir', dir, '--yes', '-w', 'json']);
    const runRecord = JSON.parse(restore.stdout);
    if (runRecord.state !== 'succeeded') throw new Error(`restore: ${runRecord.reason}`);
    hostPid = Number(readFileSync(join(dir, 'controlplane.pid'), 'utf8'));
    const steps = Object.fromEntries(runRecord.steps.map((s) => [s.id, stepSeconds(s)]));
    const back = await countObjects(kubeClient(dir, 4));
    if (back !== objects) throw new Error(`after the restore ${back} of ${objects} ConfigMaps list`);
    process.stdout.write(`bench: restore ${fmt(restore.seconds, 2)} s wall; ${back} ConfigMaps list again\n`);

    const t = report.timings;
    const md = [
      `# drill and restore benchmark ${new Date().toISOString()}`,
      '',
      `A \`pilothouse up\` plane (3 members, API server, controllers) holding ${objects} ConfigMaps (~200 B of data each) created through the API server, 32 POSTs in flight; then the CLI commands, wall-clock including the CLI's own start.`,
      '',
      '| measurement | seconds |',
      '|---|---|',
      `| setup: ${objects} creates | ${fmt(setup.seconds, 1)} (${fmt(objects / setup.seconds, 0)}/s) |`,
      `| backup save (wall) | ${fmt(save.seconds, 2)} |`,
      `| drill (wall) | ${fmt(drill.seconds, 2)} |`,
      `| drill RTO: restore → every resource listed | ${fmt(report.rtoMs / 1000, 2)} |`,
      `| · restore 3 data dirs | ${fmt(t.restoreMs / 1000, 2)} |`,
      `| · members + API server ready (from restore start) | ${fmt(t.serveMs / 1000, 2)} |`,
      `| · discovery + list of every resource | ${fmt(t.listMs / 1000, 2)} |`,
      `| restore (wall) | ${fmt(restore.seconds, 2)} |`,
      `| · stop the plane | ${fmt(steps.stop, 2)} |`,
      `| · restore 3 data dirs (bumped, compacted) | ${fmt(steps.restore, 2)} |`,
      `| · members serving | ${fmt(steps.start, 2)} |`,
      `| · API server and controllers usable | ${fmt(steps.serving, 2)} |`,
      '',
    ].join('\n');
    writeResults('drill', { objects, setup, saveSeconds: save.seconds, drillSeconds: drill.seconds, drill: { rtoMs: report.rtoMs, timings: t, checks: report.checks }, restoreSeconds: restore.seconds, restoreSteps: steps }, md);
  } finally {
    // after a restore the plane runs under a detached `up` named in DIR/controlplane.pid
    for (const pid of [hostPid, up.child.pid]) {
      if (pid === undefined) continue;
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        continue;
      }
      for (let i = 0; i < 150; i++) {
        try {
          process.kill(pid, 0);
        } catch {
          break;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
}
