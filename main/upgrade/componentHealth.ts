// When a replaced component is back, asked the way an operator would:
//   - a member: it serves a linearizable read and has applied everything the
//     leader had committed when it first answered (etcd's upgrade guide:
//     healthy and caught up before the next member goes down);
//   - the API server: /readyz answers 200;
//   - the controllers: the plane is usable again (their Leases held, every
//     node Ready, the aggregated roles filled: readiness.ts).
// Each wait polls until its deadline and ends early when the orchestrator has
// given up on the component (crashed for good). A failed wait says what it saw
// last: the component's state, its last exit, restarts, the last health
// answer and the tail of its log — what the user needs to judge it.

import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type { ControlledComponent } from '../controlplane/controlSocket';
import { probeUsable } from '../controlplane/readiness';
import type { ApplyPlane } from './applyPlane';
import type { ComponentKind } from './build';
import { electedHolders } from './leadership';

const POLL_MS = 200;
const LOG_TAIL_LINES = 15;
const LOG_TAIL_BYTES = 16 * 1024;

export interface Seen {
  state?: string;
  pid?: number;
  restarts?: number;
  lastExit?: ControlledComponent['lastExit'];
  /** The last health answer (or error). */
  health: string;
  logTail: string[];
}

export type BackOutcome = { ok: true; detail: string; ms: number } | { ok: false; why: string; seen: Seen; ms: number };

/** The last lines of a log file (at most LOG_TAIL_BYTES read). */
export function logTail(file: string, lines = LOG_TAIL_LINES): string[] {
  try {
    const size = statSync(file).size;
    const len = Math.min(size, LOG_TAIL_BYTES);
    const buf = Buffer.alloc(len);
    const fd = openSync(file, 'r');
    try {
      readSync(fd, buf, 0, len, size - len);
    } finally {
      closeSync(fd);
    }
    const all = buf.toString('utf8').split('\n').filter((l) => l.trim() !== '');
    return all.slice(size > len ? Math.max(1, all.length - lines) : Math.max(0, all.length - lines));
  } catch {
    return [];
  }
}

async function component(plane: ApplyPlane, id: string): Promise<ControlledComponent | undefined> {
  return (await plane.control.components().catch(() => [])).find((c) => c.id === id);
}

function seenOf(c: ControlledComponent | undefined, health: string, logFile: string): Seen {
  return {
    ...(c && { state: c.state, restarts: c.restarts }),
    ...(c?.pid !== undefined && { pid: c.pid }),
    ...(c?.lastExit && { lastExit: c.lastExit }),
    health,
    logTail: logTail(logFile),
  };
}

/** Leader's committed index, as the leader reports it; undefined while there is none. */
async function leaderIndex(plane: ApplyPlane): Promise<{ name: string; index: bigint } | undefined> {
  const all = await Promise.all(plane.members.map(async (m) => ({ name: m.name, st: await plane.memberClient(m.name).status(1_000).catch(() => undefined) })));
  const leaderId = all.find((a) => a.st && a.st.leader !== '0')?.st?.leader;
  const leader = all.find((a) => a.st?.header?.member_id === leaderId);
  return leader?.st ? { name: leader.name, index: BigInt(leader.st.raftIndex) } : undefined;
}

async function poll(deadline: number, signal: AbortSignal | undefined, probe: () => Promise<boolean>): Promise<boolean> {
  while (Date.now() < deadline) {
    signal?.throwIfAborted();
    if (await probe()) return true;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return false;
}

export async function waitMemberBack(plane: ApplyPlane, name: string, timeoutMs: number, signal?: AbortSignal): Promise<BackOutcome> {
  const t0 = Date.now();
  let health = 'no answer yet';
  let target: { name: string; index: bigint } | undefined;
  let gaveUp = false;
  const ok = await poll(t0 + timeoutMs, signal, async () => {
    const c = await component(plane, name);
    if (c?.state === 'crashed') return (gaveUp = true);
    try {
      await plane.memberClient(name).healthRead(1_000);
    } catch (err) {
      health = `linearizable read: ${(err as Error).message}`;
      return false;
    }
    target ??= await leaderIndex(plane);
    if (!target) {
      health = 'serves reads, but no member reports a leader';
      return false;
    }
    const st = await plane.memberClient(name).status(1_000).catch((err: Error) => err);
    if (st instanceof Error) {
      health = `status: ${st.message}`;
      return false;
    }
    const applied = BigInt(st.raftAppliedIndex);
    health = `applied index ${applied}, leader ${target.name} had committed ${target.index}`;
    return applied >= target.index;
  });
  const ms = Date.now() - t0;
  if (ok && !gaveUp) return { ok: true, detail: `healthy and caught up (${health}) in ${ms} ms`, ms };
  const c = await component(plane, name);
  const why = gaveUp ? `${name} kept exiting and was given up on` : `${name} was not healthy and caught up within ${timeoutMs} ms`;
  return { ok: false, why, seen: seenOf(c, health, plane.logFile(name)), ms };
}

export async function waitApiServerBack(plane: ApplyPlane, timeoutMs: number, signal?: AbortSignal): Promise<BackOutcome> {
  const t0 = Date.now();
  let health = 'no answer yet';
  let gaveUp = false;
  const ok = await poll(t0 + timeoutMs, signal, async () => {
    const c = await component(plane, 'apiserver');
    if (c?.state === 'crashed') return (gaveUp = true);
    try {
      await plane.rest().request('GET', '/readyz', { signal: AbortSignal.timeout(1_000) });
      health = '/readyz 200';
      return true;
    } catch (err) {
      health = `/readyz: ${(err as Error).message}`;
      return false;
    }
  });
  const ms = Date.now() - t0;
  if (ok && !gaveUp) return { ok: true, detail: `ready (/readyz 200) in ${ms} ms`, ms };
  const why = gaveUp ? 'the API server kept exiting and was given up on' : `the API server was not ready within ${timeoutMs} ms`;
  return { ok: false, why, seen: seenOf(await component(plane, 'apiserver'), health, plane.logFile('apiserver')), ms };
}

/**
 * previousHolders: who held the elected Leases before the replacement. The
 * old process's Leases stay fresh for their duration, so the plane counts as
 * usable again only once a holder other than those renews them.
 */
export async function waitControllersBack(plane: ApplyPlane, nodes: number, timeoutMs: number, signal?: AbortSignal, previousHolders: string[] = []): Promise<BackOutcome> {
  const t0 = Date.now();
  let health = 'no answer yet';
  let gaveUp = false;
  const ok = await poll(t0 + timeoutMs, signal, async () => {
    const c = await component(plane, 'controllers');
    if (c?.state === 'crashed') return (gaveUp = true);
    // A controllers process still starting has not taken the Leases over yet.
    if (c?.state !== 'running' && c?.state !== 'starting') {
      health = `process ${c?.state ?? 'unknown'}`;
      return false;
    }
    const stale = (await electedHolders(plane).catch(() => [])).filter((h) => previousHolders.includes(h));
    if (stale.length > 0) {
      health = `the elected Leases are still held by the previous process (${stale.join(', ')})`;
      return false;
    }
    const why = await probeUsable(plane.rest(), { nodes }).catch((err: Error) => err.message);
    health = why ?? 'leases held by the new process, nodes Ready';
    return why === undefined;
  });
  const ms = Date.now() - t0;
  if (ok && !gaveUp) return { ok: true, detail: `plane usable (${health}) in ${ms} ms`, ms };
  const why = gaveUp ? 'the controllers kept exiting and were given up on' : `the controllers did not make the plane usable within ${timeoutMs} ms`;
  return { ok: false, why, seen: seenOf(await component(plane, 'controllers'), health, plane.logFile('controllers')), ms };
}

export function waitBack(plane: ApplyPlane, id: string, kind: ComponentKind, nodes: number, timeoutMs: number, signal?: AbortSignal, previousHolders: string[] = []): Promise<BackOutcome> {
  if (kind === 'etcd') return waitMemberBack(plane, id, timeoutMs, signal);
  if (kind === 'apiserver') return waitApiServerBack(plane, timeoutMs, signal);
  return waitControllersBack(plane, nodes, timeoutMs, signal, previousHolders);
}
