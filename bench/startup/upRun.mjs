// One `pilothouse up` start for the start-up benchmark: spawned with
// process.execPath and ELECTRON_RUN_AS_NODE=1 on a data dir, timed (ms since
// spawn) to each of up's progress lines and to the milestones the
// components write to DIR/logs/<name>.log, then stopped with SIGTERM and
// reaped by PID — `up` first, then any of its children it left behind.

import { join } from 'node:path';
import { CLI_JS } from '../etcd/common.mjs';
import { cpuMsOf, followFiles, reapOrphans, spawnTimed, stopTimed } from './timedProcess.mjs';

/** up's stdout lines, in the order it prints them. */
export const UP_LINES = [
  ['pki', 'PKI made, members spawned', /^pilothouse: starting \d+ members/],
  ['leader', 'a leader seen; API server spawned', /^pilothouse: starting the API server/],
  ['cluster', 'cluster ready (every member reads)', /^pilothouse: cluster ready/],
  ['apiserver', 'API server ready (/readyz)', /^pilothouse: API server ready/],
  ['controllers', 'controllers running (spawned)', /^pilothouse: controllers running/],
  ['ready', 'control plane ready', /^pilothouse: control plane ready/],
];

/** Lines of DIR/logs/<file>.log; `last` takes the time of the last of `count` matches (every member, every node). */
export const LOG_MILESTONES = [
  ['membersSpawned', 'members: spawned (first)', /^m\d/, /^pilothouse-console: started pid/],
  ['firstLeader', 'members: first "became leader"', /^m\d/, /became leader at term/],
  ['membersServing', 'members: all "ready to serve"', /^m\d/, /ready to serve client requests/, 'members'],
  ['apiSpawned', 'apiserver: spawned', /^apiserver$/, /^pilothouse-console: started pid/],
  ['apiWatchCaches', 'apiserver: watch caches ready', /^apiserver$/, /watch caches ready/],
  ['apiServing', 'apiserver: serving', /^apiserver$/, /serving on https/],
  ['apiRbac', 'apiserver: RBAC bootstrap done', /^apiserver$/, /rbac\/bootstrap-roles done/],
  ['ctlSpawned', 'controllers: spawned', /^controllers$/, /^pilothouse-console: started pid/],
  ['ctlRunning', 'controllers: running (PKI, clients made)', /^controllers$/, /controllers: running/],
  ['nodesRegistered', 'controllers: all nodes registered', /^controllers$/, /node \S+ registered/, 'nodes'],
  ['schedulerLease', 'controllers: scheduler Lease acquired', /^controllers$/, /acquired lease kube-system\/kube-scheduler/],
  ['managerLease', 'controllers: controller-manager Lease acquired', /^controllers$/, /acquired lease kube-system\/kube-controller-manager/],
  ['managerStarted', 'controllers: controller manager started', /^controllers$/, /controller manager: started/],
];

const LOG_FILES = ['m1', 'm2', 'm3', 'apiserver', 'controllers'];

/**
 * Starts `up` on dataDir and portBase and waits (bounded by boundMs) for its
 * ready line; always stops it. Resolves with {lines: {id: ms}, milestones:
 * {id: ms}, reportedMs (up's own "in N ms"), stop: {graceful, ms}}.
 */
export async function timeUp(dataDir, portBase, { boundMs = 90_000, nodes = 3, cliJs = CLI_JS } = {}) {
  const files = LOG_FILES.map((n) => join(dataDir, 'logs', `${n}.log`));
  const up = spawnTimed(process.execPath, [cliJs, 'up', '--data-dir', dataDir, '--port-base', String(portBase), '--nodes', String(nodes)], { ELECTRON_RUN_AS_NODE: '1' });
  const logs = followFiles(files, up.t0);
  let childPids = [];
  try {
    const ready = await up.waitFor(/^pilothouse: control plane ready/, boundMs);
    // The last log lines (a Lease acquired just before ready) may still be in flight.
    await new Promise((r) => setTimeout(r, 100));
    const cpuMs = cpuAtReady(up.pid, up.lines);
    logs.stop();
    childPids = pidsOf(up.lines);
    return {
      cpuMs,
      lines: Object.fromEntries(UP_LINES.map(([id, , re]) => [id, up.lines.find((l) => re.test(l.text))?.atMs])),
      milestones: milestones(logs.lines, nodes),
      reportedMs: Number(/in (\d+) ms/.exec(ready.text)?.[1]),
      stop: await stopTimed(up),
    };
  } finally {
    logs.stop();
    await stopTimed(up);
    childPids = childPids.length ? childPids : pidsOf(up.lines);
    const orphans = await reapOrphans(childPids);
    if (orphans.length) process.stdout.write(`bench: killed ${orphans.length} processes \`up\` left behind: ${orphans.join(', ')}\n`);
  }
}

/**
 * CPU time each process of the plane had used when `up` said ready: a
 * figure other work on the machine barely moves, unlike the wall times.
 */
function cpuAtReady(upPid, lines) {
  const named = { up: upPid };
  for (const l of lines) for (const m of l.text.matchAll(/\b(m\d+|apiserver|controllers) pid (\d+)/g)) named[m[1]] ??= Number(m[2]);
  const out = Object.fromEntries(Object.entries(named).map(([k, pid]) => [k, cpuMsOf(pid)]));
  out.total = Object.values(out).reduce((a, b) => a + b, 0);
  return out;
}

/** The PIDs up printed for its children. */
function pidsOf(lines) {
  const pids = [];
  for (const l of lines) for (const m of l.text.matchAll(/\bpid (\d+)/g)) pids.push(Number(m[1]));
  return [...new Set(pids)];
}

function milestones(lines, nodes) {
  const out = {};
  for (const [id, , fileRe, re, last] of LOG_MILESTONES) {
    const hits = lines.filter((l) => fileRe.test(l.file.split('/').pop().replace(/\.log$/, '')) && re.test(l.text));
    const want = last === 'members' ? 3 : last === 'nodes' ? nodes : 1;
    out[id] = hits.length >= want ? hits[want - 1].atMs : undefined;
  }
  return out;
}
