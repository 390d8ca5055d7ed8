// What the supervisor waits for, as functions of the running plane: every named member
// serving a linearizable read, the leader's name, the API server's /readyz,
// and the plane made usable by the controllers (planeReadiness.ts). The
// first start (supervisor.ts) and the rolling restart (rollingRestart.ts)
// both wait with them.

import { probeReadyz } from './apiserverLayout';
import type { RunningPlane } from './runningPlane';

/** The usable check is three LISTs: asked less often than the cheap probes, often enough not to add to the start. */
const USABLE_POLL_MS = 100;
/**
 * Once the Leases are held, what is left (nodes Ready, the roles aggregated)
 * follows within a few hundred milliseconds: asked this often then, so the
 * ready line comes close after it.
 */
const NEAR_USABLE_POLL_MS = 25;

/** Resolves true once every named member serves a linearizable read (each one marked running), false at the deadline. */
export async function waitMembersHealthy(sup: RunningPlane, names: string[], deadline: number, ready = new Set<string>()): Promise<boolean> {
  const all = await sup.pollUntil(deadline, async () => {
    await Promise.all(
      names
        .filter((n) => !ready.has(n))
        .map(async (n) => {
          try {
            await sup.client(n).healthRead(1_000);
            ready.add(n);
            sup.process(n).markReady();
          } catch {
            // not yet
          }
        }),
    );
    return ready.size === names.length ? true : undefined;
  });
  return all === true;
}

/** "term N" once a member answers Status with a leader; undefined while none does. */
export async function leaderTerm(sup: RunningPlane): Promise<string | undefined> {
  const answers = await Promise.all(sup.layout.map((m) => sup.client(m.name).status(500).catch(() => undefined)));
  const st = answers.find((a) => a !== undefined && a.leader !== '0');
  return st ? `term ${st.raftTerm}` : undefined;
}

/** The member that leads, as the members see it; undefined when none answers with one. */
export async function leaderName(sup: RunningPlane): Promise<string | undefined> {
  const answers = await Promise.all(sup.layout.map(async (m) => ({ name: m.name, st: await sup.client(m.name).status(1_000).catch(() => undefined) })));
  const leaderId = answers.find((a) => a.st && a.st.leader !== '0')?.st?.leader;
  return answers.find((a) => a.st?.header?.member_id === leaderId)?.name;
}

/** Polls /readyz until 200 (the API server marked running): 'ready', 'exited' (and not being restarted) or 'timeout' with the last answer. */
export async function waitApiServerReady(sup: RunningPlane, deadline: number): Promise<{ outcome: 'ready' | 'exited' | 'timeout'; why: string }> {
  const api = sup.apiserver!;
  let why = 'no answer';
  const ready = await sup.pollUntil(deadline, async () => {
    if (!api.running && api.state !== 'restarting' && api.state !== 'starting') return 'exited' as const;
    try {
      const code = await probeReadyz(sup.apiLayout!, 1_000);
      if (code === 200) return 'ready' as const;
      why = `/readyz answered ${code}`;
    } catch (err) {
      why = (err as Error).message;
    }
    return undefined;
  });
  if (ready === 'ready') api.markReady();
  return { outcome: ready ?? 'timeout', why };
}

/**
 * Polls until the controllers have made the plane usable (readiness.ts;
 * the controllers marked running): undefined then, else why not at the
 * deadline. A crashed controllers process is restarted meanwhile by its
 * supervision; one that gave up ends the wait.
 */
export async function waitUsable(sup: RunningPlane, deadline: number): Promise<string | undefined> {
  const ctl = sup.controllers!;
  const { kubeconfigClient, probeUsable } = await import('./readiness');
  const rest = kubeconfigClient(sup.apiLayout!.kubeconfig, 'pilothouse-supervisor');
  let why = 'no answer';
  let nextProbeAt = 0;
  try {
    const usable = await sup.pollUntil(
      deadline,
      async () => {
        if (ctl.state === 'crashed' || ctl.state === 'stopped') return (why = `the controllers exited; see ${sup.controllersLayout.logFile}`), false;
        if (Date.now() < nextProbeAt) return undefined;
        const reason = await probeUsable(rest, { nodes: sup.nodes }).catch((err: Error) => err.message);
        if (reason === undefined) return true;
        why = reason;
        const near = reason.includes('nodes Ready') || reason.includes('ClusterRole');
        nextProbeAt = Date.now() + (near ? 0 : USABLE_POLL_MS - NEAR_USABLE_POLL_MS);
        return undefined;
      },
      NEAR_USABLE_POLL_MS,
    );
    if (usable !== true) return why;
    ctl.markReady();
    return undefined;
  } finally {
    rest.close();
  }
}
