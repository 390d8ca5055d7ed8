// `startKubelets(ctx)`: the simulated nodes of `pilothouse controllers`
// (--nodes N, --node-name-prefix), each a SimKubelet with its own identity
// (ctx.nodeClients: kubelet-<node>.conf when the program has one). Kubelets
// do not elect a leader: every node runs for as long as ctx.signal allows.

import type { ControllerContext } from '../../client/kube/context';
import { DEFAULT_CAPACITY, type NodeCapacity } from './nodeObject';
import { SimKubelet } from './simKubelet';

export { setNodeState, simulatedNodes, STATE_ANNOTATION, type NodeState } from './control';

/** kubelet's nodeStatusReportFrequency: an unchanged status is posted every 5 minutes. */
export const NODE_STATUS_REPORT_FREQUENCY_MS = 5 * 60_000;

export function nodeNames(ctx: Pick<ControllerContext, 'options'>): string[] {
  return Array.from({ length: ctx.options.nodes }, (_, i) => `${ctx.options.nodeNamePrefix}${i + 1}`);
}

export async function startKubelets(ctx: ControllerContext, opts: { capacity?: NodeCapacity; random?: () => number } = {}): Promise<void> {
  const o = ctx.options;
  const kubelets = await Promise.all(
    nodeNames(ctx).map(async (name, i) => {
      const clients = await ctx.nodeClients(name);
      return new SimKubelet(
        {
          name,
          index: i + 1,
          capacity: opts.capacity ?? DEFAULT_CAPACITY,
          podStartDelayMs: o.podStartDelayMs,
          podStartJitterMs: o.podStartJitterMs,
          leaseRenewIntervalMs: o.nodeLeaseRenewIntervalMs,
          leaseDurationSeconds: o.nodeLeaseDurationSeconds,
          statusUpdateFrequencyMs: o.nodeStatusUpdateFrequencyMs,
          statusReportFrequencyMs: NODE_STATUS_REPORT_FREQUENCY_MS,
          clock: ctx.clock,
          random: opts.random ?? Math.random,
          log: (m) => ctx.log(`kubelet: ${m}`),
        },
        clients,
        ctx.signal,
      );
    }),
  );
  await Promise.all(kubelets.map((k) => k.start()));
}
