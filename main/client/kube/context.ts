// What `pilothouse controllers` hands each component it runs (scheduler,
// controller manager, node lifecycle controller, simulated kubelets). A
// component is a function `start*(ctx)` that registers its informers and
// handlers, starts its workers and resolves once running; it stops all of
// it when ctx.signal aborts (leadership lost or the program stopping) and
// must not outlive it. One ctx per component incarnation: a component that
// regains leadership gets a fresh ctx (fresh informer factory), so nothing
// from the previous term leaks into the next.
//
//   export async function startScheduler(ctx: ControllerContext): Promise<void> {
//     const pods = ctx.informers.informer<Pod>(RESOURCES.pods, { fieldSelector: 'status.phase!=Succeeded,status.phase!=Failed' });
//     const queue = new RateLimitingQueue<string>({ clock: ctx.clock });
//     pods.addEventHandler({ add: (p) => queue.add(objectKey(p)) });
//     ctx.signal.addEventListener('abort', () => queue.shutDown());
//     if (!(await ctx.informers.waitForCacheSync(ctx.signal))) return;
//     void runWorkers(queue, 4, (key) => sync(key));
//   }
//
// ctx.informers is already started: informers asked for at any time begin
// their list+watch at once.

import type { Clock } from './clock';
import type { EventRecorder } from './eventRecorder';
import type { SharedInformerFactory } from './informerFactory';
import type { KubeClients } from './rest';

export interface ControllerOptions {
  /** Simulated nodes: `${nodeNamePrefix}${i}` for i in 1..nodes. */
  nodes: number;
  nodeNamePrefix: string;
  /** Node lifecycle controller (kube-controller-manager flags). */
  nodeMonitorPeriodMs: number;
  nodeMonitorGracePeriodMs: number;
  /** Grace after Ready=Unknown before evicting pods without a matching toleration (0: at once, as the taint manager). */
  podEvictionTimeoutMs: number;
  /** Simulated kubelet timing: each step waits delay ± jitter (uniform). */
  podStartDelayMs: number;
  podStartJitterMs: number;
  /** Node Lease renew interval (kubelet: 10 s) and duration (40 s). */
  nodeLeaseRenewIntervalMs: number;
  nodeLeaseDurationSeconds: number;
  /** NodeStatus refresh (kubelet's nodeStatusUpdateFrequency, 10 s). */
  nodeStatusUpdateFrequencyMs: number;
  /** Worker counts (kube-controller-manager's --concurrent-*-syncs). */
  concurrentSyncs: number;
  /** Each controller as its own kube-system service account (kube-controller-manager --use-service-account-credentials). */
  useServiceAccountCredentials?: boolean;
}

export const DEFAULT_CONTROLLER_OPTIONS: ControllerOptions = {
  nodes: 3,
  nodeNamePrefix: 'node-',
  nodeMonitorPeriodMs: 5_000,
  nodeMonitorGracePeriodMs: 50_000,
  podEvictionTimeoutMs: 0,
  podStartDelayMs: 100,
  podStartJitterMs: 50,
  nodeLeaseRenewIntervalMs: 10_000,
  nodeLeaseDurationSeconds: 40,
  nodeStatusUpdateFrequencyMs: 10_000,
  concurrentSyncs: 5,
};

export interface ControllerContext {
  /** kube-scheduler, kube-controller-manager, or kubelet (see `componentName`). */
  component: string;
  /** This component's identity (its own kubeconfig when the program was given one). */
  clients: KubeClients;
  /** Shared, already started, stops with `signal`. */
  informers: SharedInformerFactory;
  /**
   * An event recorder writing as this component's identity with
   * source.component = component (e.g. 'default-scheduler', 'deployment-controller', 'kubelet') and source.host.
   */
  recorder(component: string, host?: string): EventRecorder;
  /**
   * The clients of simulated node `nodeName` (kubelet-<node>.conf when given,
   * else this component's). Only meaningful for the kubelets.
   */
  nodeClients(nodeName: string): Promise<KubeClients>;
  clock: Clock;
  options: ControllerOptions;
  /** Aborts when the component must stop (leadership lost or program exit). */
  signal: AbortSignal;
  log(message: string): void;
}

/** The signature each component exports. */
export type StartComponent = (ctx: ControllerContext) => Promise<void>;
