// PATCH content types and PatchOptions validation as kube words them.

import { describe, expect, it } from 'vitest';
import { patchDecodeInvalid, patchTypeOf, validatePatchOptions } from '../../../../main/apiserver/patch/patchStatus';

describe('patchTypeOf', () => {
  const cases: [string | undefined, string | undefined][] = [
    ['application/json-patch+json', 'json'],
    ['application/merge-patch+json; charset=utf-8', 'merge'],
    ['application/strategic-merge-patch+json', 'strategic'],
    ['application/apply-patch+yaml', 'apply'],
    ['application/json', undefined],
    [undefined, undefined],
  ];
  for (const [ct, want] of cases) it(String(ct), () => expect(patchTypeOf(ct)).toBe(want));
});

describe('validatePatchOptions', () => {
  it('apply without a field manager → 422', () => {
    expect(() => validatePatchOptions({}, 'apply')).toThrowError(
      expect.objectContaining({
        status: expect.objectContaining({
          code: 422,
          reason: 'Invalid',
          message: 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
        }),
      }),
    );
  });
  it('force on a non-apply patch → 422', () => {
    expect(() => validatePatchOptions({ force: true }, 'merge')).toThrowError(
      expect.objectContaining({ status: expect.objectContaining({ message: 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch' }) }),
    );
  });
  it('valid options pass', () => {
    expect(() => validatePatchOptions({ fieldManager: 'kubectl', force: false }, 'apply')).not.toThrow();
    expect(() => validatePatchOptions({ fieldManager: 'x' }, 'strategic')).not.toThrow();
  });
});

describe('patchDecodeInvalid', () => {
  it('renders kube’s "patch" field error', () => {
    const s = patchDecodeInvalid('[1]', 'json: cannot unmarshal array into Go value of type v1.Pod').status;
    expect(s).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message: ' "" is invalid: patch: Invalid value: "[1]": json: cannot unmarshal array into Go value of type v1.Pod',
      details: { causes: [{ reason: 'FieldValueInvalid', field: 'patch', message: 'Invalid value: "[1]": json: cannot unmarshal array into Go value of type v1.Pod' }] },
    });
  });
});
