// ObjectMeta validation as apimachinery's api/validation/objectmeta.go:
// name/generateName through the type's name function, namespace presence by
// scope, labels and annotations syntax, finalizers, and the fields an update
// may not change.

import type { ObjectMeta } from '../../../kube/object';
import { type ErrorList, forbidden, immutable, invalid, nonNegative, required, tooLong } from './field';
import { type NameFn, isDNS1123Label, isQualifiedName, isValidLabelValue } from './names';

const totalAnnotationSizeLimit = 256 * 1024;

export function validateLabels(labels: Record<string, string> | undefined, field: string): ErrorList {
  const errs: ErrorList = [];
  for (const [k, v] of Object.entries(labels ?? {})) {
    for (const m of isQualifiedName(k)) errs.push(invalid(field, k, m));
    for (const m of isValidLabelValue(v)) errs.push(invalid(field, v, m));
  }
  return errs;
}

export function validateAnnotations(annotations: Record<string, string> | undefined, field: string): ErrorList {
  const errs: ErrorList = [];
  let size = 0;
  for (const [k, v] of Object.entries(annotations ?? {})) {
    for (const m of isQualifiedName(k.toLowerCase())) errs.push(invalid(field, k, m));
    size += Buffer.byteLength(k) + Buffer.byteLength(v);
  }
  if (size > totalAnnotationSizeLimit) errs.push(tooLong(field, `may not be more than ${totalAnnotationSizeLimit} bytes`));
  return errs;
}

/** ValidateFinalizers: qualified names, no duplicates. */
export function validateFinalizers(finalizers: string[] | undefined, field: string): ErrorList {
  const errs: ErrorList = [];
  const seen = new Set<string>();
  for (const f of finalizers ?? []) {
    for (const m of isQualifiedName(f)) errs.push(invalid(field, f, m));
    if (seen.has(f)) errs.push({ type: 'FieldValueDuplicate', field, badValue: f });
    seen.add(f);
  }
  return errs;
}

/** ValidateNamespaceName. */
export const namespaceNameFn: NameFn = (name, prefix) => isDNS1123Label(prefix && name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name);

export function validateObjectMeta(meta: ObjectMeta, namespaced: boolean, nameFn: NameFn, field = 'metadata'): ErrorList {
  const errs: ErrorList = [];
  if (meta.generateName) for (const m of nameFn(meta.generateName, true)) errs.push(invalid(`${field}.generateName`, meta.generateName, m));
  if (!meta.name) errs.push(required(`${field}.name`, 'name or generateName is required'));
  else for (const m of nameFn(meta.name, false)) errs.push(invalid(`${field}.name`, meta.name, m));
  if (namespaced) {
    if (!meta.namespace) errs.push(required(`${field}.namespace`));
    else for (const m of namespaceNameFn(meta.namespace, false)) errs.push(invalid(`${field}.namespace`, meta.namespace, m));
  } else if (meta.namespace) {
    errs.push(forbidden(`${field}.namespace`, 'not allowed on this type'));
  }
  errs.push(...nonNegative(meta.generation ?? 0, `${field}.generation`));
  errs.push(...validateLabels(meta.labels, `${field}.labels`));
  errs.push(...validateAnnotations(meta.annotations, `${field}.annotations`));
  errs.push(...validateFinalizers(meta.finalizers, `${field}.finalizers`));
  return errs;
}

/** ValidateObjectMetaUpdate: identity fields fixed, the rest re-validated. */
export function validateObjectMetaUpdate(meta: ObjectMeta, old: ObjectMeta, field = 'metadata'): ErrorList {
  const errs: ErrorList = [];
  errs.push(...immutable(meta.name, old.name, `${field}.name`));
  errs.push(...immutable(meta.namespace, old.namespace, `${field}.namespace`));
  errs.push(...immutable(meta.uid, old.uid, `${field}.uid`));
  errs.push(...immutable(meta.creationTimestamp ?? null, old.creationTimestamp ?? null, `${field}.creationTimestamp`));
  if (old.deletionTimestamp && meta.deletionTimestamp !== old.deletionTimestamp) {
    errs.push(invalid(`${field}.deletionTimestamp`, meta.deletionTimestamp ?? null, 'field is immutable; may only be changed via deletion'));
  }
  if (old.deletionGracePeriodSeconds !== undefined && meta.deletionGracePeriodSeconds !== old.deletionGracePeriodSeconds) {
    errs.push(invalid(`${field}.deletionGracePeriodSeconds`, meta.deletionGracePeriodSeconds ?? null, 'field is immutable; may only be changed via deletion'));
  }
  errs.push(...nonNegative(meta.generation ?? 0, `${field}.generation`));
  errs.push(...validateLabels(meta.labels, `${field}.labels`));
  errs.push(...validateAnnotations(meta.annotations, `${field}.annotations`));
  errs.push(...validateFinalizers(meta.finalizers, `${field}.finalizers`));
  return errs;
}
