// A 3-member cluster of one implementation for the benchmark: the same etcd
// flags for Debian's etcd and for `node out/main/cli.js etcd`, loopback ports
// in [base, base+5], a temp data dir, and a stop() that SIGTERMs then SIGKILLs.

import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, rmSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Etcd3 } from 'etcd3';

export function programFor(impl, cliJs) {
  return impl === 'etcd'
    ? { command: '/usr/bin/etcd', args: [] }
    : { command: process.execPath, args: [cliJs, 'etcd'], env: { ELECTRON_RUN_AS_NODE: '1' } };
}

export async function startCluster(impl, program, base) {
  const dir = mkdtempSync(join(tmpdir(), `pilothouse-bench-${impl}-`));
  const members = [1, 2, 3].map((i) => ({
    name: `m${i}`,
    client: `http://127.0.0.1:${base + 2 * (i - 1)}`,
    peer: `http://127.0.0.1:${base + 2 * (i - 1) + 1}`,
  }));
  const initialCluster = members.map((m) => `${m.name}=${m.peer}`).join(',');
  const spawnMember = (m, state) => {
    const log = openSync(join(dir, `${m.name}.log`), 'a');
    const child = spawn(
      program.command,
      [
        ...program.args,
        '--name', m.name, '--data-dir', join(dir, m.name),
        '--listen-client-urls', m.client, '--advertise-client-urls', m.client,
        '--listen-peer-urls', m.peer, '--initial-advertise-peer-urls', m.peer,
        '--initial-cluster', initialCluster, '--initial-cluster-state', state, '--initial-cluster-token', `bench-${impl}`,
      ],
      { stdio: ['ignore', log, log], env: { ...process.env, ...program.env } },
    );
    closeSync(log);
    return child;
  };
  const children = members.map((m) => spawnMember(m, 'new'));
  const endpoints = members.map((m) => m.client);
  const stop = async () => {
    await Promise.all(
      children.map(
        (c) =>
          new Promise((resolve) => {
            if (c.exitCode !== null || c.signalCode !== null) return resolve();
            const timer = setTimeout(() => c.kill('SIGKILL'), 10_000);
            c.once('exit', () => (clearTimeout(timer), resolve()));
            c.kill('SIGTERM');
          }),
      ),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitReady(endpoints, 30_000);
  } catch (err) {
    const tails = members.map((m) => {
      try {
        return `--- ${m.name}.log (tail)\n${readFileSync(join(dir, `${m.name}.log`), 'utf8').split('\n').slice(-8).join('\n')}`;
      } catch {
        return '';
      }
    });
    await stop();
    err.message += `\n${tails.join('\n')}`;
    throw err;
  }
  /** SIGTERM to member i (SIGKILL after 10 s), then the same member started again on its data dir; resolves once spawned. */
  const restart = async (i) => {
    const c = children[i];
    if (c.exitCode === null && c.signalCode === null) {
      await new Promise((resolve) => {
        const timer = setTimeout(() => c.kill('SIGKILL'), 10_000);
        c.once('exit', () => (clearTimeout(timer), resolve()));
        c.kill('SIGTERM');
      });
    }
    children[i] = spawnMember(members[i], 'existing');
  };
  return { impl, endpoints, get pids() { return children.map((c) => c.pid); }, stop, restart };
}

async function waitReady(endpoints, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (const ep of endpoints) {
    const client = new Etcd3({ hosts: [ep], dialTimeout: 1_000 });
    try {
      for (;;) {
        try {
          await client.get('bench-ready').string();
          break;
        } catch (err) {
          if (Date.now() > deadline) throw new Error(`${ep} not ready: ${err.message}`);
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    } finally {
      client.close();
    }
  }
}

/** Resident set size in KiB (Linux /proc), or undefined. */
export function rssKiB(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}
