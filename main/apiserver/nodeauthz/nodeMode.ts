// The `Node` authorization mode wired to the server: a mirror of the pods
// watch cache (only each pod's node and references are kept) feeding the
// NodeGraph, rebuilt lazily when pods changed since the last graph read —
// only secret/configmap/claim/token requests from kubelets read it.

import type { KObject } from '../../kube/object';
import type { ServerEnv } from '../serverEnv';
import { nodeRules } from '../rbac/bootstrap/clusterRoles';
import { prefixOf } from '../rbac/policyCache';
import type { RuleResolvingAuthorizer } from '../rbac/rbacAuthorizer';
import { WatchMirror } from '../rbac/watchMirror';
import { nodeAuthorizer } from './nodeAuthorizer';
import { NodeGraph } from './nodeGraph';

/** The part of a pod the graph needs (spec.nodeName and the references), kept small. */
function podSkeleton(pod: KObject): KObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: pod.metadata?.name, namespace: pod.metadata?.namespace }, spec: pod.spec };
}

export function nodeMode(env: ServerEnv): RuleResolvingAuthorizer {
  const pods = new WatchMirror<KObject>({ storage: () => env.storageFor('pods', ''), prefix: prefixOf(env, 'pods', ''), toEntry: podSkeleton, log: env.log });
  const graph = new NodeGraph();
  let builtAt = -1;
  return nodeAuthorizer({
    nodeRules: nodeRules(),
    graph: async () => {
      await pods.ready();
      if (builtAt !== pods.generation) {
        graph.clear();
        for (const p of pods.values()) graph.setPod(p);
        builtAt = pods.generation;
      }
      return graph;
    },
  });
}
