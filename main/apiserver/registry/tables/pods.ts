// `kubectl get pods` columns exactly as kube's printPod
// (pkg/printers/internalversion/printers.go): the aggregate Status reason
// walks init containers, then regular containers (last first), then the
// Terminating / Unknown override; Restarts carries "(Xm ago)".

import type { KObject } from '../../../kube/object';
import type { TableConvertor } from '../rest/resourceDef';
import { type Rec, arr, isRec, num, recOpt, str } from '../common/obj';
import { ageColumn, col, nameColumn } from './columns';
import { translateTimestampSince } from './duration';

const readinessGatesDescription = 'If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to "True" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates';

const isRestartableInit = (c: Rec | undefined) => str(c, 'restartPolicy') === 'Always';

function laterOf(a: string, b: unknown): string {
  if (typeof b !== 'string' || !b) return a;
  return !a || Date.parse(b) > Date.parse(a) ? b : a;
}

export function podRow(pod: KObject, now: Date): unknown[] {
  const spec = (isRec(pod.spec) ? pod.spec : {}) as Rec;
  const status = (isRec(pod.status) ? pod.status : {}) as Rec;
  const conditions = arr(status, 'conditions');
  const initSpecs = new Map(arr(spec, 'initContainers').map((c) => [str(c, 'name'), c]));
  let restarts = 0;
  let sidecarRestarts = 0;
  let totalContainers = arr(spec, 'containers').length;
  let ready = 0;
  let lastRestart = '';
  let lastSidecarRestart = '';
  const phase = str(status, 'phase');
  let reason = str(status, 'reason') || phase;
  for (const c of conditions) if (str(c, 'type') === 'PodScheduled' && str(c, 'reason') === 'SchedulingGated') reason = 'SchedulingGated';
  for (const c of initSpecs.values()) if (isRestartableInit(c)) totalContainers++;

  let initializing = false;
  const initStatuses = arr(status, 'initContainerStatuses');
  for (let i = 0; i < initStatuses.length; i++) {
    const cs = initStatuses[i];
    const csSpec = initSpecs.get(str(cs, 'name'));
    restarts += num(cs, 'restartCount') ?? 0;
    const lastTerm = recOpt(recOpt(cs, 'lastState'), 'terminated');
    if (lastTerm) lastRestart = laterOf(lastRestart, lastTerm.finishedAt);
    if (isRestartableInit(csSpec)) {
      sidecarRestarts += num(cs, 'restartCount') ?? 0;
      if (lastTerm) lastSidecarRestart = laterOf(lastSidecarRestart, lastTerm.finishedAt);
    }
    const term = recOpt(recOpt(cs, 'state'), 'terminated');
    const waiting = recOpt(recOpt(cs, 'state'), 'waiting');
    if (term && (num(term, 'exitCode') ?? 0) === 0) continue;
    if (isRestartableInit(csSpec) && cs.started === true) {
      if (cs.ready === true) ready++;
      continue;
    }
    if (term) {
      const r = str(term, 'reason');
      if (r) reason = `Init:${r}`;
      else if ((num(term, 'signal') ?? 0) !== 0) reason = `Init:Signal:${num(term, 'signal')}`;
      else reason = `Init:ExitCode:${num(term, 'exitCode') ?? 0}`;
    } else if (waiting && str(waiting, 'reason') && str(waiting, 'reason') !== 'PodInitializing') {
      reason = `Init:${str(waiting, 'reason')}`;
    } else {
      reason = `Init:${i}/${initSpecs.size}`;
    }
    initializing = true;
    break;
  }

  const initializedTrue = conditions.some((c) => str(c, 'type') === 'Initialized' && str(c, 'status') === 'True');
  if (!initializing || initializedTrue) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    const statuses = arr(status, 'containerStatuses');
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i];
      restarts += num(cs, 'restartCount') ?? 0;
      const lastTerm = recOpt(recOpt(cs, 'lastState'), 'terminated');
      if (lastTerm) lastRestart = laterOf(lastRestart, lastTerm.finishedAt);
      const state = recOpt(cs, 'state');
      const waiting = recOpt(state, 'waiting');
      const term = recOpt(state, 'terminated');
      if (waiting && str(waiting, 'reason')) reason = str(waiting, 'reason');
      else if (term && str(term, 'reason')) reason = str(term, 'reason');
      else if (term) reason = (num(term, 'signal') ?? 0) !== 0 ? `Signal:${num(term, 'signal')}` : `ExitCode:${num(term, 'exitCode') ?? 0}`;
      else if (cs.ready === true && recOpt(state, 'running')) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === 'Completed' && hasRunning) {
      reason = conditions.some((c) => str(c, 'type') === 'Ready' && str(c, 'status') === 'True') ? 'Running' : 'NotReady';
    }
  }

  if (pod.metadata.deletionTimestamp && str(status, 'reason') === 'NodeLost') reason = 'Unknown';
  else if (pod.metadata.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';

  const restartsCell = restarts !== 0 && lastRestart ? `${restarts} (${translateTimestampSince(lastRestart, now)} ago)` : String(restarts);
  const podIPs = arr(status, 'podIPs');
  const podIP = (podIPs.length ? str(podIPs[0], 'ip') : '') || '<none>';
  const gates = arr(spec, 'readinessGates');
  let gatesCell = '<none>';
  if (gates.length) {
    let trueCount = 0;
    for (const g of gates) {
      const c = conditions.find((x) => str(x, 'type') === str(g, 'conditionType'));
      if (c && str(c, 'status') === 'True') trueCount++;
    }
    gatesCell = `${trueCount}/${gates.length}`;
  }
  return [
    pod.metadata.name,
    `${ready}/${totalContainers}`,
    reason,
    restartsCell,
    translateTimestampSince(pod.metadata.creationTimestamp, now),
    podIP,
    str(spec, 'nodeName') || '<none>',
    str(status, 'nominatedNodeName') || '<none>',
    gatesCell,
  ];
}

export const podTable: TableConvertor = {
  columns: [
    nameColumn,
    col('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    col('Status', 'string', 'The aggregate status of the containers in this pod.'),
    col('Restarts', 'string', 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
    ageColumn,
    col('IP', 'string', 'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.', 1),
    col('Node', 'string', 'NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName.', 1),
    col('Nominated Node', 'string', 'nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods.', 1),
    col('Readiness Gates', 'string', readinessGatesDescription, 1),
  ],
  cells: podRow,
  conditions(pod) {
    const phase = isRec(pod.status) ? str(pod.status, 'phase') : '';
    if (phase === 'Succeeded') return [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }];
    if (phase === 'Failed') return [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];
    return undefined;
  },
};
