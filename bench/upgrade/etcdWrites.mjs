// The etcd side of the upgrade benchmark, the same for both implementations:
//   - writeLoop: one Put every 20 ms through the etcd3 npm client, one
//     client per member, moving to the next member after a failure (as a
//     client with every endpoint would), each Put bounded by 1 s; it counts
//     writes, failures and the longest run of failures (first failed attempt
//     to the next acknowledged write);
//   - rollingRestart: Debian etcd 3.4 members replaced one by one as etcd's
//     upgrade guide says and `pilothouse upgrade apply` does — followers
//     first, the leader last after `etcdctl move-leader`, each waited for
//     until it is healthy and has applied what the leader had committed —
//     the reference for how long etcd itself is unavailable to writers.

import { execFile } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { Etcd3 } from 'etcd3';

const run = promisify(execFile);
const PUT_EVERY_MS = 20;
const PUT_TIMEOUT_MS = 1_000;

/**
 * Calls attempt(i) one at a time, one every everyMs, until stop(): how many
 * writes, how many failed, and the longest run of failures (from the first
 * failed attempt to the next acknowledged write).
 */
export function pacedWrites(everyMs, attempt) {
  let stop = false;
  let writes = 0;
  let failed = 0;
  let longestMs = 0;
  let failingSince;
  const loop = (async () => {
    for (let i = 0; !stop && i < 10_000_000; i++) {
      const t = performance.now();
      const ok = await attempt(i).catch(() => false);
      writes++;
      if (ok) {
        if (failingSince !== undefined) longestMs = Math.max(longestMs, performance.now() - failingSince);
        failingSince = undefined;
      } else {
        failed++;
        failingSince ??= t;
      }
      const wait = everyMs - (performance.now() - t);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  })();
  return {
    async stop() {
      stop = true;
      await loop;
      return { writes, failed, longestMs };
    },
  };
}

/** Puts until stop(); clients: one Etcd3 per member, the next one after a failure. */
export function writeLoop(clients, prefix) {
  let at = 0;
  return pacedWrites(PUT_EVERY_MS, async (i) => {
    try {
      await Promise.race([
        clients[at].put(`${prefix}${String(i).padStart(8, '0')}`).value(String(i)),
        new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), PUT_TIMEOUT_MS)),
      ]);
      return true;
    } catch {
      at = (at + 1) % clients.length;
      return false;
    }
  });
}

async function etcdctl(args) {
  const { stdout } = await run('/usr/bin/etcdctl', args, { env: { ...process.env, ETCDCTL_API: '3' }, timeout: 10_000 });
  return stdout;
}

/**
 * etcdctl 3.4's simple status lines, one per member that answered:
 * "endpoint, ID (hex), version, db size, is leader, is learner, raft term, raft index, raft applied index, errors".
 * (The JSON form prints the 64-bit IDs as numbers, which JSON.parse rounds.)
 */
async function statuses(endpoints) {
  let out;
  try {
    out = await etcdctl(['--endpoints', endpoints.join(','), 'endpoint', 'status']);
  } catch (err) {
    // A member that is down makes etcdctl exit non-zero but still print the others.
    out = err.stdout ?? '';
  }
  return out
    .split('\n')
    .filter((l) => l.includes(', '))
    .map((l) => {
      const f = l.split(', ');
      return { endpoint: f[0], id: f[1], leader: f[4] === 'true', raftIndex: Number(f[7]), appliedIndex: Number(f[8]) };
    });
}

async function waitCaughtUp(endpoint, endpoints, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let target;
  while (Date.now() < deadline) {
    try {
      await etcdctl(['--endpoints', endpoint, 'endpoint', 'health']);
      target ??= (await statuses(endpoints)).find((s) => s.leader)?.raftIndex;
      const [mine] = await statuses([endpoint]);
      if (target !== undefined && mine && mine.appliedIndex >= target) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${endpoint} was not healthy and caught up within ${timeoutMs} ms`);
}

const hostPort = (url) => url.replace(/^https?:\/\//, '');

/** Restarts the bench cluster's members in turn, the leader last after move-leader; per member, the seconds it took. */
export async function rollingRestart(cluster) {
  const all = await statuses(cluster.endpoints);
  const leaderAt = cluster.endpoints.findIndex((e) => hostPort(all.find((s) => s.leader)?.endpoint ?? '') === hostPort(e));
  if (leaderAt < 0) throw new Error('no leader among the members');
  const order = [...cluster.endpoints.keys()].filter((i) => i !== leaderAt).concat([leaderAt]);
  const times = [];
  for (const i of order) {
    const t0 = performance.now();
    if (i === leaderAt) {
      const [to] = await statuses([cluster.endpoints[order[0]]]);
      await etcdctl(['--endpoints', cluster.endpoints[i], 'move-leader', to.id]);
    }
    await cluster.restart(i);
    await waitCaughtUp(cluster.endpoints[i], cluster.endpoints, 60_000);
    times.push({ member: `m${i + 1}`, seconds: (performance.now() - t0) / 1000, leader: i === leaderAt });
  }
  return times;
}

/** One Etcd3 client per endpoint (credentials for https). */
export function memberClients(endpoints, credentials) {
  return endpoints.map((e) => new Etcd3({ hosts: [e], dialTimeout: 1_000, ...(credentials && { credentials }) }));
}
