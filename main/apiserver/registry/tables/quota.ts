// kube's printResourceQuota: the status's hard limits with their usage,
// "name: used/hard" joined by ", ", limits.* names in the LIMIT column and
// everything else in REQUEST, names sorted. Columns in kube 1.32's order
// (NAME AGE REQUEST LIMIT; AGE moved last only in 1.33).

import type { TableConvertor } from '../rest/resourceDef';
import { type Rec, isRec } from '../common/obj';
import { ageColumn, col, nameColumn } from './columns';
import { translateTimestampSince } from './duration';

export const resourceQuotaTable: TableConvertor = {
  columns: [
    nameColumn,
    ageColumn,
    col('Request', 'string', 'Request represents a minimum amount of cpu/memory that a container may consume.'),
    col('Limit', 'string', 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.'),
  ],
  cells(obj, now) {
    const status = isRec(obj.status) ? (obj.status as Rec) : {};
    const hard = isRec(status.hard) ? (status.hard as Record<string, string>) : {};
    const used = isRec(status.used) ? (status.used as Record<string, string>) : {};
    const request: string[] = [];
    const limit: string[] = [];
    for (const name of Object.keys(hard).sort()) {
      const pieces = name.split('.');
      (pieces.length > 1 && pieces[0] === 'limits' ? limit : request).push(`${name}: ${used[name] ?? '0'}/${hard[name]}`);
    }
    return [obj.metadata.name ?? '', translateTimestampSince(obj.metadata.creationTimestamp, now), request.join(', '), limit.join(', ')];
  },
};
