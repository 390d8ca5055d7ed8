// One scheduling decision, pure: filter every node, score the feasible ones,
// pick the host — or explain in kube's words why none fits.

import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { fitErrorMessage, runFilters, type FilterResult } from './filters';
import { buildNodeInfos } from './nodeInfo';
import { scoreNodes, selectHost } from './scores';

export type ScheduleResult = { ok: true; node: string } | { ok: false; message: string };

export function schedulePod(pod: V1Pod, nodes: V1Node[], pods: V1Pod[], random: () => number = Math.random): ScheduleResult {
  const infos = buildNodeInfos(nodes, pods);
  const feasible = [];
  const failures: FilterResult[] = [];
  for (const info of infos) {
    const r = runFilters(pod, info);
    if (r) failures.push(r);
    else feasible.push(info);
  }
  if (feasible.length === 0) return { ok: false, message: fitErrorMessage(infos.length, failures) };
  const i = selectHost(scoreNodes(pod, feasible), random);
  return { ok: true, node: feasible[i]!.node.metadata!.name! };
}
