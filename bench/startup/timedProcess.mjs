// The start-up benchmark's process plumbing: a child whose output lines are
// timestamped as they arrive (milliseconds since its spawn), log files
// followed from their size at spawn time (a warm restart appends to the same
// files), and stops that always end with the child reaped by its PID.

import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const CLK_TCK = 100; // Linux USER_HZ

/** utime+stime of a live process in ms (Linux /proc), NaN when it is gone. */
export function cpuMsOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK;
  } catch {
    return NaN;
  }
}

/** Whether a PID names a live process (signal 0 only checks). */
export function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Spawns command args; lines() holds every stdout/stderr line with its time
 * (ms since spawn), waitFor(re, ms) resolves with the first matching line's
 * time or rejects at the bound or when the child exits first.
 */
export function spawnTimed(command, args, env = {}) {
  const t0 = performance.now();
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  const lines = [];
  let exit;
  const exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => resolve((exit = { code, signal, atMs: performance.now() - t0 })));
    child.once('error', (err) => resolve((exit = { code: null, signal: null, error: err.message, atMs: performance.now() - t0 })));
  });
  for (const stream of [child.stdout, child.stderr]) {
    let buf = '';
    stream.setEncoding('utf8');
    stream.on('data', (d) => {
      const at = performance.now() - t0;
      buf += d;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        lines.push({ atMs: at, text: buf.slice(0, nl) });
        buf = buf.slice(nl + 1);
      }
    });
  }
  const waitFor = async (re, boundMs) => {
    const end = Date.now() + boundMs;
    for (;;) {
      const hit = lines.find((l) => re.test(l.text));
      if (hit) return hit;
      if (exit) throw new Error(`${command} exited (${exit.code ?? exit.signal ?? exit.error}) before ${re}:\n${tail(lines)}`);
      if (Date.now() > end) throw new Error(`no ${re} within ${boundMs} ms:\n${tail(lines)}`);
      await sleep(10);
    }
  };
  return { child, pid: child.pid, t0, lines, exited, waitFor, exitInfo: () => exit };
}

function tail(lines) {
  return lines.slice(-12).map((l) => `  ${l.text}`).join('\n');
}

/** SIGTERM pid, SIGKILL after graceMs; resolves once the child's exit event fired (stopping: {graceful, ms}). */
export async function stopTimed(proc, graceMs = 20_000) {
  if (proc.exitInfo()) return { graceful: true, ms: 0 };
  const t = performance.now();
  proc.child.kill('SIGTERM');
  const killed = sleep(graceMs).then(() => 'timeout');
  if ((await Promise.race([proc.exited, killed])) === 'timeout') {
    proc.child.kill('SIGKILL');
    await proc.exited;
    return { graceful: false, ms: performance.now() - t };
  }
  return { graceful: true, ms: performance.now() - t };
}

/** SIGKILLs every PID of pids still alive (grandchildren left by a parent that was killed); waits for them to go, bounded. */
export async function reapOrphans(pids, boundMs = 5_000) {
  const left = pids.filter((p) => p && alive(p));
  for (const p of left) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  const end = Date.now() + boundMs;
  while (left.some(alive) && Date.now() < end) await sleep(20);
  return left;
}

/**
 * Follows files from their current size; every poll (pollMs) appends new
 * lines as {file, atMs (since t0), text}. stop() ends it; read the lines after.
 */
export function followFiles(files, t0, pollMs = 20) {
  const offsets = new Map(files.map((f) => [f, existsSync(f) ? statSync(f).size : 0]));
  const partial = new Map();
  const lines = [];
  const poll = () => {
    const at = performance.now() - t0;
    for (const f of files) {
      if (!existsSync(f)) continue;
      const size = statSync(f).size;
      const from = offsets.get(f);
      if (size <= from) continue;
      const buf = Buffer.alloc(size - from);
      const fd = openSync(f, 'r');
      try {
        readSync(fd, buf, 0, buf.length, from);
      } finally {
        closeSync(fd);
      }
      offsets.set(f, size);
      const text = (partial.get(f) ?? '') + buf.toString('utf8');
      const parts = text.split('\n');
      partial.set(f, parts.pop());
      for (const p of parts) lines.push({ file: f, atMs: at, text: p });
    }
  };
  const timer = setInterval(poll, pollMs);
  return {
    lines,
    stop() {
      clearInterval(timer);
      poll();
    },
  };
}
