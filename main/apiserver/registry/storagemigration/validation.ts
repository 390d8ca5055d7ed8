// storagemigration.k8s.io/v1alpha1 validation as kube 1.32's
// pkg/apis/storagemigration/validation: spec.resource needs resource and
// version, the resource is immutable (kube reports it at the bare paths
// `group`, `version`, `resource`), and a status update must keep
// status.resourceVersion once set, keep Succeeded/Failed once true and never
// have Running true beside either. Conditions are checked one by one (kube's
// own condition rules: label-name type, True/False/Unknown, a reason of the
// condition-reason form; a missing lastUpdateTime is reported at
// `lastTransitionTime`, as kube does).

import type { KObject } from '../../../kube/object';
import { GoLiteral } from '../../api/status';
import { type ErrorList, duplicate, invalid, notSupported, required, tooLong } from '../../api/validation/field';
import { goTime } from '../../api/validation/gofmt';
import { isQualifiedName, regexError } from '../../api/validation/names';
import { MIGRATION_FAILED, MIGRATION_RUNNING, MIGRATION_SUCCEEDED, isConditionTrue, type StorageVersionMigration } from '../../../kube/storageVersionMigration';
import { type Rec, arr, recOpt, str } from '../common/obj';

const CONDITION_STATUSES = ['False', 'True', 'Unknown'];
const REASON_FMT = '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?';
const REASON_RE = new RegExp(`^${REASON_FMT}$`);
const REASON_MSG = "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'";
const MAX_REASON = 1024;
const MAX_MESSAGE = 32 * 1024;

const specResource = (obj: KObject): Rec => recOpt(recOpt(obj as Rec, 'spec'), 'resource') ?? {};
const conditionsOf = (obj: KObject): Rec[] => arr(recOpt(obj as Rec, 'status'), 'conditions');

/** ValidateStorageVersionMigration beyond ObjectMeta. */
export function validateMigrationSpec(obj: KObject): ErrorList {
  const r = specResource(obj);
  const errs: ErrorList = [];
  if (!str(r, 'resource')) errs.push(required('spec.resource.resource', 'resource is required'));
  if (!str(r, 'version')) errs.push(required('spec.resource.version', 'version is required'));
  return errs;
}

/** ValidateStorageVersionMigrationUpdate's immutability checks (paths as kube writes them). */
export function validateMigrationSpecUpdate(obj: KObject, old: KObject): ErrorList {
  const now = specResource(obj);
  const was = specResource(old);
  const errs: ErrorList = [];
  for (const f of ['group', 'version', 'resource']) {
    if (str(now, f) !== str(was, f)) errs.push(invalid(f, str(now, f), 'field is immutable'));
  }
  return errs;
}

/** %#v of []storagemigration.MigrationCondition, the bad value kube prints for the conditions rules. */
function goConditions(conds: Rec[]): GoLiteral {
  const one = (c: Rec): string =>
    `storagemigration.MigrationCondition{Type:${JSON.stringify(str(c, 'type'))}, Status:${JSON.stringify(str(c, 'status'))}, LastUpdateTime:${goTime(str(c, 'lastUpdateTime')).text}, Reason:${JSON.stringify(str(c, 'reason'))}, Message:${JSON.stringify(str(c, 'message'))}}`;
  return new GoLiteral(conds.length ? `[]storagemigration.MigrationCondition{${conds.map(one).join(', ')}}` : '[]storagemigration.MigrationCondition(nil)');
}

function validateCondition(c: Rec, path: string): ErrorList {
  const errs: ErrorList = [];
  const type = str(c, 'type');
  for (const m of isQualifiedName(type)) errs.push(invalid(`${path}.type`, type, m));
  if (!CONDITION_STATUSES.includes(str(c, 'status'))) errs.push(notSupported(`${path}.status`, str(c, 'status'), CONDITION_STATUSES));
  if (!str(c, 'lastUpdateTime')) errs.push(required(`${path}.lastTransitionTime`));
  const reason = str(c, 'reason');
  if (!reason) errs.push(required(`${path}.reason`));
  else {
    if (!REASON_RE.test(reason)) errs.push(invalid(`${path}.reason`, reason, regexError(REASON_MSG, REASON_FMT, 'my_name', 'MY_NAME', 'MyName', 'ReasonA,ReasonB', 'ReasonA:ReasonB')));
    if (Buffer.byteLength(reason) > MAX_REASON) errs.push(tooLong(`${path}.reason`, `may not be more than ${MAX_REASON} bytes`));
  }
  if (Buffer.byteLength(str(c, 'message')) > MAX_MESSAGE) errs.push(tooLong(`${path}.message`, `may not be more than ${MAX_MESSAGE} bytes`));
  return errs;
}

/** ValidateStorageVersionMigrationStatusUpdate beyond ObjectMeta. */
export function validateMigrationStatusUpdate(obj: KObject, old: KObject): ErrorList {
  const errs: ErrorList = [];
  const rv = str(recOpt(obj as Rec, 'status'), 'resourceVersion');
  const oldRv = str(recOpt(old as Rec, 'status'), 'resourceVersion');
  if (rv !== '' && !/^[+-]?[0-9]+$/.test(rv)) {
    errs.push(invalid('status.resourceVersion', rv, `failed to parse resource version ${JSON.stringify(rv)}: strconv.ParseInt: parsing ${JSON.stringify(rv)}: invalid syntax`));
  } else if (rv !== '' && BigInt(rv) < 0n) {
    errs.push(invalid('status.resourceVersion', Number(rv), 'must be greater than or equal to 0'));
  }
  const conds = conditionsOf(obj);
  const seen = new Set<string>();
  conds.forEach((c, i) => {
    const type = str(c, 'type');
    if (seen.has(type)) errs.push(duplicate(`status.conditions[${i}].type`, type));
    seen.add(type);
    errs.push(...validateCondition(c, `status.conditions[${i}]`));
  });
  if (oldRv !== '' && oldRv !== rv) errs.push(invalid('status.resourceVersion', rv, 'cannot be updated'));
  const svm = obj as StorageVersionMigration;
  const succeeded = isConditionTrue(svm, MIGRATION_SUCCEEDED);
  const failed = isConditionTrue(svm, MIGRATION_FAILED);
  const running = isConditionTrue(svm, MIGRATION_RUNNING);
  const bad = (detail: string): void => void errs.push(invalid('status.conditions', goConditions(conds), detail));
  if (succeeded && failed) bad('Both success and failed conditions cannot be true at the same time');
  if (succeeded && running) bad('Running condition cannot be true when success condition is true');
  if (failed && running) bad('Running condition cannot be true when failed condition is true');
  if (isConditionTrue(old as StorageVersionMigration, MIGRATION_SUCCEEDED) && !succeeded) bad('Success condition cannot be set to false once it is true');
  if (isConditionTrue(old as StorageVersionMigration, MIGRATION_FAILED) && !failed) bad('Failed condition cannot be set to false once it is true');
  return errs;
}
