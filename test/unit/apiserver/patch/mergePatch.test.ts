// RFC 7386 merge patch as evanphx MergePatch applies it inside kube, with the
// 400 texts of patch.go for strict and non-strict decoding.

import { describe, expect, it } from 'vitest';
import { StatusError } from '../../../../main/apiserver/api/status';
import { mergePatch } from '../../../../main/apiserver/patch/mergePatch';

const live = () => ({
  metadata: { name: 'nginx', labels: { app: 'nginx', tier: 'web' } },
  spec: { replicas: 1, template: { spec: { containers: [{ name: 'nginx', image: 'nginx' }] } } },
});

describe('mergePatch', () => {
  const cases: { name: string; patch: unknown; want: unknown }[] = [
    { name: 'scale (kubectl scale body)', patch: { spec: { replicas: 3 } }, want: { ...live(), spec: { ...live().spec, replicas: 3 } } },
    { name: 'null deletes a label', patch: { metadata: { labels: { tier: null } } }, want: { ...live(), metadata: { name: 'nginx', labels: { app: 'nginx' } } } },
    { name: 'labels: null removes the map', patch: { metadata: { labels: null } }, want: { ...live(), metadata: { name: 'nginx' } } },
    { name: 'empty patch is a no-op', patch: {}, want: live() },
    {
      name: 'arrays are replaced whole, nulls inside pruned',
      patch: { spec: { template: { spec: { containers: [{ name: 'redis', image: null }] } } } },
      want: { ...live(), spec: { replicas: 1, template: { spec: { containers: [{ name: 'redis' }] } } } },
    },
    {
      name: 'a new object member loses its nulls',
      patch: { spec: { strategy: { type: 'Recreate', rollingUpdate: null } } },
      want: { ...live(), spec: { ...live().spec, strategy: { type: 'Recreate' } } },
    },
    { name: 'a scalar replaces an object', patch: { spec: 'x' }, want: { ...live(), spec: 'x' } },
    { name: 'null for a missing member is ignored', patch: { status: null }, want: live() },
  ];
  for (const c of cases) {
    for (const strict of [false, true]) {
      it(`${c.name}${strict ? ' (strict)' : ''}`, () => {
        const before = live();
        expect(mergePatch(before, JSON.stringify(c.patch), { strict })).toEqual(c.want);
        expect(before).toEqual(live());
      });
    }
  }

  it('an array patch replaces the document (non-strict), nulls pruned', () => {
    expect(mergePatch(live(), '[{"a":null,"b":1},null]')).toEqual([{ b: 1 }, null]);
  });

  const errors: { name: string; body: string; strict: boolean; message: string }[] = [
    { name: 'null body', body: 'null', strict: false, message: 'Invalid JSON Patch' },
    { name: 'null body, strict', body: 'null', strict: true, message: 'Invalid JSON Patch' },
    { name: 'scalar body', body: '5', strict: false, message: 'Invalid JSON Patch' },
    { name: 'not JSON', body: '{x', strict: false, message: 'Invalid JSON Patch' },
    { name: 'not JSON, strict', body: 'x', strict: true, message: "error decoding patch: invalid character 'x' looking for beginning of value" },
    { name: 'array, strict', body: '[]', strict: true, message: 'error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}' },
  ];
  for (const c of errors) {
    it(`400 for ${c.name}`, () => {
      let err: unknown;
      try {
        mergePatch(live(), c.body, { strict: c.strict });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(StatusError);
      expect((err as StatusError).status).toMatchObject({ code: 400, reason: 'BadRequest', message: c.message });
    });
  }
});
