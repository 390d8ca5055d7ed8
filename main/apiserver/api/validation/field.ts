// Constructors for field errors, one per field.Error type in
// k8s.io/apimachinery/pkg/util/validation/field, so validators read like
// kube's: required(path, detail), invalid(path, value, detail), ...

import type { FieldError } from '../status';

export type ErrorList = FieldError[];

export const required = (field: string, detail = ''): FieldError => ({ type: 'FieldValueRequired', field, detail });
export const invalid = (field: string, badValue: unknown, detail: string): FieldError => ({ type: 'FieldValueInvalid', field, badValue, detail });
export const forbidden = (field: string, detail: string): FieldError => ({ type: 'FieldValueForbidden', field, detail });
export const duplicate = (field: string, badValue: unknown): FieldError => ({ type: 'FieldValueDuplicate', field, badValue });
export const tooLong = (field: string, detail: string): FieldError => ({ type: 'FieldValueTooLong', field, detail });

/** field.NotSupported: `Unsupported value: "x": supported values: "a", "b"`. */
export function notSupported(field: string, badValue: unknown, valid: string[]): FieldError {
  const detail = valid.length ? `supported values: ${valid.map((v) => JSON.stringify(v)).join(', ')}` : '';
  return { type: 'FieldValueNotSupported', field, badValue, detail };
}

/** ValidateNonnegativeField (apimachinery api/validation/generic.go). */
export function nonNegative(value: number, field: string): ErrorList {
  return value < 0 ? [invalid(field, value, 'must be greater than or equal to 0')] : [];
}

/** ValidateImmutableField: apiequality.Semantic.DeepEqual or `field is immutable`. */
export function immutable(newVal: unknown, oldVal: unknown, field: string): ErrorList {
  return deepEqual(newVal, oldVal) ? [] : [invalid(field, newVal, 'field is immutable')];
}

/** Structural equality of JSON values, treating undefined and a missing key alike. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
  for (const k of keys) if (!deepEqual(ao[k], bo[k])) return false;
  return true;
}
