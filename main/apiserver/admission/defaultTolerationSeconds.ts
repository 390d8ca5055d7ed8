// The DefaultTolerationSeconds admission plugin (kube's
// plugin/pkg/admission/defaulttolerationseconds): a pod that does not already
// tolerate the node.kubernetes.io/not-ready or .../unreachable NoExecute
// taints gets a toleration for each, bounded to --default-not-ready-
// toleration-seconds / --default-unreachable-toleration-seconds (300 s). So a
// pod on a node that stops reporting is evicted after five minutes, not at
// once. A toleration with an empty key (or empty effect) counts as tolerating.

import type { AdmissionPlugin } from './interfaces';
import type { ServerEnv } from '../serverEnv';
import type { AdmissionPluginContext } from './interfaces';

export const TAINT_NODE_NOT_READY = 'node.kubernetes.io/not-ready';
export const TAINT_NODE_UNREACHABLE = 'node.kubernetes.io/unreachable';

interface Toleration {
  key?: string;
  operator?: string;
  effect?: string;
  tolerationSeconds?: number;
}

function tolerates(ts: Toleration[], key: string): boolean {
  return ts.some((t) => (t.key === key || !t.key) && (t.effect === 'NoExecute' || !t.effect));
}

export function defaultTolerationSecondsPlugin(_env: ServerEnv, ctx?: Pick<AdmissionPluginContext, 'flags'>): AdmissionPlugin {
  const flags = ctx?.flags ?? { defaultNotReadyTolerationSeconds: 300, defaultUnreachableTolerationSeconds: 300 };
  return {
    name: 'DefaultTolerationSeconds',
    handles: (a) => (a.operation === 'CREATE' || a.operation === 'UPDATE') && a.group === '' && a.resource === 'pods' && a.subresource === '' && a.object !== undefined,
    admit(a) {
      const spec = ((a.object as { spec?: { tolerations?: Toleration[] } }).spec ??= {});
      const ts = spec.tolerations ?? [];
      const add: Toleration[] = [];
      if (!tolerates(ts, TAINT_NODE_NOT_READY)) {
        add.push({ key: TAINT_NODE_NOT_READY, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: flags.defaultNotReadyTolerationSeconds });
      }
      if (!tolerates(ts, TAINT_NODE_UNREACHABLE)) {
        add.push({ key: TAINT_NODE_UNREACHABLE, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: flags.defaultUnreachableTolerationSeconds });
      }
      if (add.length > 0) spec.tolerations = [...ts, ...add];
    },
  };
}
