// Deployment and ReplicaSet columns as kube's printDeployment /
// printReplicaSet: counts are integers, wide adds containers, images and the
// selector string.

import type { KObject } from '../../../kube/object';
import { formatLabelSelector, labelSelectorAsSelector } from '../../api/labelSelector';
import type { TableConvertor } from '../rest/resourceDef';
import { type Rec, arr, isRec, num, recOpt, str } from '../common/obj';
import { ageColumn, col, nameColumn } from './columns';
import { translateTimestampSince } from './duration';

function containerCells(obj: KObject): [string, string] {
  const containers = arr(recOpt(recOpt(obj.spec as Rec, 'template'), 'spec'), 'containers');
  return [containers.map((c) => str(c, 'name')).join(','), containers.map((c) => str(c, 'image')).join(',')];
}

function selectorString(obj: KObject): string {
  try {
    const sel = recOpt(obj.spec as Rec, 'selector');
    return labelSelectorAsSelector(sel as never).toString();
  } catch (e) {
    return `<error: ${(e as Error).message}>`;
  }
}

const wideColumns = [
  col('Containers', 'string', 'Names of each container in the template.', 1),
  col('Images', 'string', 'Images referenced by each container in the template.', 1),
  col('Selector', 'string', 'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.', 1),
];

export const deploymentTable: TableConvertor = {
  columns: [
    nameColumn,
    col('Ready', 'string', 'Number of the pod with ready state'),
    col('Up-to-date', 'string', 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.'),
    col('Available', 'string', 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.'),
    ageColumn,
    ...wideColumns,
  ],
  cells(obj, now) {
    const spec = (isRec(obj.spec) ? obj.spec : {}) as Rec;
    const status = (isRec(obj.status) ? obj.status : {}) as Rec;
    const [containers, images] = containerCells(obj);
    return [
      obj.metadata.name,
      `${num(status, 'readyReplicas') ?? 0}/${num(spec, 'replicas') ?? 0}`,
      num(status, 'updatedReplicas') ?? 0,
      num(status, 'availableReplicas') ?? 0,
      translateTimestampSince(obj.metadata.creationTimestamp, now),
      containers,
      images,
      selectorString(obj),
    ];
  },
};

export const replicaSetTable: TableConvertor = {
  columns: [
    nameColumn,
    col('Desired', 'integer', 'Replicas is the number of desired pods. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicaset'),
    col('Current', 'integer', 'Replicas is the most recently observed number of non-terminating pods. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicaset'),
    col('Ready', 'integer', 'The number of non-terminating pods targeted by this ReplicaSet with a Ready Condition.'),
    ageColumn,
    wideColumns[0],
    wideColumns[1],
    col('Selector', 'string', "Selector is a label query over pods that should match the replica count. Label keys and values that must match in order to be controlled by this replica set. It must match the pod template's labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors", 1),
  ],
  cells(obj, now) {
    const spec = (isRec(obj.spec) ? obj.spec : {}) as Rec;
    const status = (isRec(obj.status) ? obj.status : {}) as Rec;
    const [containers, images] = containerCells(obj);
    return [
      obj.metadata.name,
      num(spec, 'replicas') ?? 0,
      num(status, 'replicas') ?? 0,
      num(status, 'readyReplicas') ?? 0,
      translateTimestampSince(obj.metadata.creationTimestamp, now),
      containers,
      images,
      formatLabelSelector(recOpt(obj.spec as Rec, 'selector') as never),
    ];
  },
};
