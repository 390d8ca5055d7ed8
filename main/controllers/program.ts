// The run loop of `pilothouse controllers`: each component group runs as its
// own identity and, when it is elected (scheduler, controller manager), only
// while it holds its Lease in kube-system — as kube-scheduler and
// kube-controller-manager do. Unlike them we do not exit when the lease is
// lost (the kubelets share the process): the group's context is aborted,
// everything it started stops with it, and the group campaigns again with a
// fresh context. Leading emits kube's `LeaderElection` event on the Lease
// (`<identity> became leader`).

import { realClock, sleep, type Clock } from '../client/kube/clock';
import type { ControllerContext, ControllerOptions, StartComponent } from '../client/kube/context';
import { newEventRecorder } from '../client/kube/eventRecorder';
import { SharedInformerFactory } from '../client/kube/informerFactory';
import { LeaderElector, leaderIdentity } from '../client/kube/leaderElection';
import type { KubeClients } from '../client/kube/rest';

export interface ComponentGroup {
  /** The component's name: its Lease name in kube-system and its user-agent (kube-scheduler, kube-controller-manager, kubelet). */
  name: string;
  /** Elected groups run only while holding the Lease kube-system/<name>. */
  elected: boolean;
  /** Which identity it uses. */
  identity: 'scheduler' | 'controller-manager' | 'kubelet';
  starts: StartComponent[];
}

export interface LeaderElectionFlags {
  enabled: boolean;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  /** kube-system by default. */
  namespace: string;
}

export interface ProgramDeps {
  /** Clients of an identity; kubelet clients per node through nodeClients. */
  clients(identity: ComponentGroup['identity']): Promise<KubeClients>;
  nodeClients(node: string): Promise<KubeClients>;
  options: ControllerOptions;
  leaderElection: LeaderElectionFlags;
  clock?: Clock;
  log(component: string, message: string): void;
  /** Overrides `<hostname>_<uuid>` (tests). */
  identity?: string;
}

export interface RunningGroup {
  name: string;
  identity: string;
  /** True while the group's components run. */
  active(): boolean;
  /** Resolves when the group has fully stopped (after the program signal aborts). */
  done: Promise<void>;
}

async function startGroup(group: ComponentGroup, deps: ProgramDeps, clients: KubeClients, signal: AbortSignal): Promise<void> {
  const clock = deps.clock ?? realClock;
  const informers = new SharedInformerFactory(clients.rest, { clock, resyncMs: 0, onError: (r, e) => deps.log(group.name, `informer ${r}: ${e.message}`) });
  informers.start(signal);
  const ctx: ControllerContext = {
    component: group.name,
    clients,
    informers,
    recorder: (component, host) => newEventRecorder(clients.rest, { component, host, clock, onError: (e) => deps.log(group.name, `event: ${(e as Error).message}`) }),
    nodeClients: deps.nodeClients,
    clock,
    options: deps.options,
    signal,
    log: (m) => deps.log(group.name, m),
  };
  for (const start of group.starts) await start(ctx);
}

/** Runs one group until signal aborts; elected groups campaign, lead, and campaign again after a loss. */
export function runGroup(group: ComponentGroup, deps: ProgramDeps, signal: AbortSignal): RunningGroup {
  const clock = deps.clock ?? realClock;
  const identity = deps.identity ?? leaderIdentity();
  let active = false;
  const done = (async () => {
    const clients = await deps.clients(group.identity);
    try {
      if (!group.elected || !deps.leaderElection.enabled) {
        active = true;
        await startGroup(group, deps, clients, signal);
        await new Promise<void>((r) => (signal.aborted ? r() : signal.addEventListener('abort', () => r(), { once: true })));
        active = false;
        return;
      }
      const le = deps.leaderElection;
      const recorder = newEventRecorder(clients.rest, { component: group.name, host: identity.split('_')[0], clock });
      for (let term = 0; term < Number.MAX_SAFE_INTEGER && !signal.aborted; term++) {
        const elector = new LeaderElector(clients.rest, {
          namespace: le.namespace,
          name: group.name,
          identity,
          leaseDurationMs: le.leaseDurationMs,
          renewDeadlineMs: le.renewDeadlineMs,
          retryPeriodMs: le.retryPeriodMs,
          releaseOnCancel: true,
          clock,
          onStartedLeading: (leading) => {
            active = true;
            deps.log(group.name, `successfully acquired lease ${le.namespace}/${group.name}`);
            recorder.event(
              { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: le.namespace, name: group.name },
              'Normal',
              'LeaderElection',
              `${identity} became leader`,
            );
            startGroup(group, deps, clients, leading).catch((e: unknown) => deps.log(group.name, `start failed: ${(e as Error).stack ?? String(e)}`));
          },
          onStoppedLeading: () => {
            if (active) deps.log(group.name, signal.aborted ? 'stopped leading' : 'leaderelection lost');
            active = false;
          },
          onNewLeader: (holder) => {
            if (holder !== identity) deps.log(group.name, `new leader elected: ${holder}`);
          },
          onError: (e) => deps.log(group.name, `error retrieving resource lock ${le.namespace}/${group.name}: ${(e as Error).message}`),
        });
        await elector.run(signal);
        if (!signal.aborted) await sleep(clock, le.retryPeriodMs, signal);
      }
      await recorder.flush();
    } finally {
      clients.rest.close();
    }
  })();
  return { name: group.name, identity, active: () => active, done };
}
