import { describe, expect, it } from 'vitest';
import { jsonPatchDiff } from '../../../../main/apiserver/admission/trace/jsonPatchDiff';
import { applyJsonPatchOps } from '../../../../main/apiserver/patch/jsonPatch';
import { jsonCopy, sameJson, type JsonValue } from '../../../../main/apiserver/patch/jsonValue';

const cases: { name: string; before: unknown; after: unknown; want: unknown[] }[] = [
  { name: 'equal documents', before: { a: 1, b: [1, 2] }, after: { b: [1, 2], a: 1 }, want: [] },
  { name: 'added key', before: { spec: {} }, after: { spec: { serviceAccountName: 'default' } }, want: [{ op: 'add', path: '/spec/serviceAccountName', value: 'default' }] },
  { name: 'removed key', before: { a: 1, b: 2 }, after: { a: 1 }, want: [{ op: 'remove', path: '/b' }] },
  { name: 'replaced scalar', before: { a: 1 }, after: { a: '1' }, want: [{ op: 'replace', path: '/a', value: '1' }] },
  { name: 'escaped tokens', before: { m: {} }, after: { m: { 'kubernetes.io/limit-ranger': 'x', 'a~b': 1 } }, want: [{ op: 'add', path: '/m/kubernetes.io~1limit-ranger', value: 'x' }, { op: 'add', path: '/m/a~0b', value: 1 }] },
  { name: 'appended array elements', before: { v: [{ n: 1 }] }, after: { v: [{ n: 1 }, { n: 2 }, { n: 3 }] }, want: [{ op: 'add', path: '/v/1', value: { n: 2 } }, { op: 'add', path: '/v/2', value: { n: 3 } }] },
  { name: 'truncated array removes from the end', before: { v: [1, 2, 3] }, after: { v: [1] }, want: [{ op: 'remove', path: '/v/2' }, { op: 'remove', path: '/v/1' }] },
  { name: 'same-length array diffs element-wise', before: { c: [{ name: 'a' }, { name: 'b' }] }, after: { c: [{ name: 'a', r: {} }, { name: 'b' }] }, want: [{ op: 'add', path: '/c/0/r', value: {} }] },
  { name: 'different prefix replaces the array', before: { v: [1, 2] }, after: { v: [3, 2, 1] }, want: [{ op: 'replace', path: '/v', value: [3, 2, 1] }] },
  { name: 'type change replaces', before: { v: [1] }, after: { v: { a: 1 } }, want: [{ op: 'replace', path: '/v', value: { a: 1 } }] },
];

describe('jsonPatchDiff', () => {
  for (const c of cases) {
    it(c.name, () => {
      const ops = jsonPatchDiff(c.before, c.after);
      expect(ops).toEqual(c.want);
      // The patch turns before into after.
      const applied = applyJsonPatchOps(structuredClone(c.before) as JsonValue, ops.map((o) => ({ ...o, hasValue: 'value' in o })) as never);
      expect(applied).toEqual(c.after);
    });
  }
});

describe('sameJson and jsonCopy', () => {
  const doc = { metadata: { name: 'p', labels: { a: '1' }, gone: undefined }, spec: { containers: [{ name: 'c', ports: [{ containerPort: 80 }] }] }, n: null, z: 0, f: false };
  it('jsonCopy is what a JSON round trip gives, sharing nothing', () => {
    const copy = jsonCopy(doc);
    expect(copy).toStrictEqual(JSON.parse(JSON.stringify(doc)));
    expect(copy.spec.containers[0]).not.toBe(doc.spec.containers[0]);
    expect(jsonCopy([1, undefined, 'x'])).toStrictEqual([1, null, 'x']);
  });
  it('sameJson ignores key order and undefined keys; any other difference counts', () => {
    expect(sameJson(doc, jsonCopy(doc))).toBe(true);
    expect(sameJson({ a: 1, b: 2 }, { b: 2, a: 1, c: undefined })).toBe(true);
    const changes: [unknown, unknown][] = [
      [{ a: 1 }, { a: 1, b: null }],
      [{ a: 1, b: 2 }, { a: 1 }],
      [{ a: [1, 2] }, { a: [1, 2, 3] }],
      [{ a: [1, 2] }, { a: [2, 1] }],
      [{ a: { b: { c: 'x' } } }, { a: { b: { c: 'y' } } }],
      [{ a: [] }, { a: {} }],
      [{ a: 0 }, { a: false }],
      [{ a: '1' }, { a: 1 }],
    ];
    for (const [x, y] of changes) {
      expect(sameJson(x, y), JSON.stringify([x, y])).toBe(false);
      expect(sameJson(y, x), JSON.stringify([y, x])).toBe(false);
    }
  });
});
