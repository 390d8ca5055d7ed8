// RFC 6902 JSON patch with kube's (evanphx/json-patch v4) quirks and kube's
// Status errors: 400 for an undecodable body, 413 past 10000 ops, 422 with
// the generic text for any failure while applying.

import { describe, expect, it } from 'vitest';
import { StatusError } from '../../../../main/apiserver/api/status';
import { applyJsonPatchOps, decodeJsonPatch, decodePointerToken, encodePointerToken, jsonPatch, JsonPatchError } from '../../../../main/apiserver/patch/jsonPatch';

const deploy = () => ({
  metadata: { name: 'nginx', labels: { app: 'nginx', 'app.kubernetes.io/name': 'web', 'a~b': 'x' } },
  spec: { replicas: 1, template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.25' }, { name: 'side', image: 'busybox' }] } } },
});

describe('jsonPatch applies operations', () => {
  const cases: { name: string; ops: unknown[]; want: (d: any) => unknown; got: (d: any) => unknown }[] = [
    { name: 'replace a scalar', ops: [{ op: 'replace', path: '/spec/replicas', value: 3 }], got: (d) => d.spec.replicas, want: () => 3 },
    { name: 'add a new member', ops: [{ op: 'add', path: '/spec/paused', value: true }], got: (d) => d.spec.paused, want: () => true },
    { name: 'add replaces an existing member', ops: [{ op: 'add', path: '/spec/replicas', value: 5 }], got: (d) => d.spec.replicas, want: () => 5 },
    {
      name: 'add with "-" appends',
      ops: [{ op: 'add', path: '/spec/template/spec/containers/-', value: { name: 'c3', image: 'redis' } }],
      got: (d) => d.spec.template.spec.containers.map((c: any) => c.name),
      want: () => ['nginx', 'side', 'c3'],
    },
    {
      name: 'add at an index inserts',
      ops: [{ op: 'add', path: '/spec/template/spec/containers/0', value: { name: 'first' } }],
      got: (d) => d.spec.template.spec.containers.map((c: any) => c.name),
      want: () => ['first', 'nginx', 'side'],
    },
    { name: '~1 escapes a slash', ops: [{ op: 'remove', path: '/metadata/labels/app.kubernetes.io~1name' }], got: (d) => Object.keys(d.metadata.labels), want: () => ['app', 'a~b'] },
    { name: '~0 escapes a tilde', ops: [{ op: 'replace', path: '/metadata/labels/a~0b', value: 'y' }], got: (d) => d.metadata.labels['a~b'], want: () => 'y' },
    {
      name: 'negative index counts from the end',
      ops: [{ op: 'replace', path: '/spec/template/spec/containers/-1/image', value: 'alpine' }],
      got: (d) => d.spec.template.spec.containers[1].image,
      want: () => 'alpine',
    },
    {
      name: 'move takes the value away',
      ops: [{ op: 'move', from: '/metadata/labels/app', path: '/metadata/labels/moved' }],
      got: (d) => [d.metadata.labels.app, d.metadata.labels.moved],
      want: () => [undefined, 'nginx'],
    },
    {
      name: 'copy duplicates deeply',
      ops: [
        { op: 'copy', from: '/spec/template/spec/containers/0', path: '/spec/template/spec/containers/-' },
        { op: 'replace', path: '/spec/template/spec/containers/2/name', value: 'copy' },
      ],
      got: (d) => d.spec.template.spec.containers.map((c: any) => c.name),
      want: () => ['nginx', 'side', 'copy'],
    },
    { name: 'passing test', ops: [{ op: 'test', path: '/spec/replicas', value: 1 }], got: (d) => d.spec.replicas, want: () => 1 },
    { name: 'test of a missing member against null passes', ops: [{ op: 'test', path: '/spec/missing', value: null }], got: (d) => d.spec.missing, want: () => undefined },
    { name: 'test compares objects structurally', ops: [{ op: 'test', path: '/metadata/labels', value: { 'a~b': 'x', app: 'nginx', 'app.kubernetes.io/name': 'web' } }], got: (d) => d.metadata.name, want: () => 'nginx' },
    { name: 'replace the whole document', ops: [{ op: 'replace', path: '', value: { kind: 'X' } }], got: (d) => d, want: () => ({ kind: 'X' }) },
    { name: 'replacing the root with a scalar is ignored (v4)', ops: [{ op: 'replace', path: '', value: 1 }], got: (d) => d, want: () => deploy() },
    {
      name: 'add at -1 appends (negative insert index counts from the new end)',
      ops: [{ op: 'add', path: '/spec/template/spec/containers/-1', value: { name: 'last' } }],
      got: (d) => d.spec.template.spec.containers.map((c: any) => c.name),
      want: () => ['nginx', 'side', 'last'],
    },
    { name: 'test the whole document', ops: [{ op: 'test', path: '', value: deploy() }], got: (d) => d.metadata.name, want: () => 'nginx' },
    { name: 'empty patch changes nothing', ops: [], got: (d) => d, want: () => deploy() },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const before = deploy();
      const out = jsonPatch(before, JSON.stringify(c.ops));
      expect(c.got(out)).toEqual(c.want(out));
      expect(before).toEqual(deploy()); // input untouched
    });
  }

  it('a null body is an empty patch', () => {
    expect(jsonPatch(deploy(), 'null')).toEqual(deploy());
  });
});

describe('jsonPatch errors', () => {
  const generic422 = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'the server rejected our request due to an error in our request',
    reason: 'Invalid',
    details: {},
    code: 422,
  };
  const cases: { name: string; body: string; code: number; message?: string; status?: object }[] = [
    { name: 'failed test → 422 generic', body: '[{"op":"test","path":"/spec/replicas","value":2}]', code: 422, status: generic422 },
    { name: 'remove of a missing member → 422', body: '[{"op":"remove","path":"/spec/nope"}]', code: 422, status: generic422 },
    { name: 'replace of a missing member → 422', body: '[{"op":"replace","path":"/spec/nope","value":1}]', code: 422, status: generic422 },
    { name: 'add under a missing parent → 422', body: '[{"op":"add","path":"/spec/a/b","value":1}]', code: 422, status: generic422 },
    { name: 'index out of range → 422', body: '[{"op":"replace","path":"/spec/template/spec/containers/7","value":1}]', code: 422, status: generic422 },
    { name: 'unknown op → 422', body: '[{"op":"frobnicate","path":"/spec"}]', code: 422, status: generic422 },
    { name: 'add at the root → 422', body: '[{"op":"add","path":"","value":{}}]', code: 422, status: generic422 },
    { name: 'test of the whole document that fails → 422', body: '[{"op":"test","path":"","value":{}}]', code: 422, status: generic422 },
    { name: 'object body → 400', body: '{"op":"add"}', code: 400, message: 'json: cannot unmarshal object into Go value of type jsonpatch.Patch' },
    { name: 'string element → 400', body: '["x"]', code: 400, message: 'json: cannot unmarshal string into Go value of type jsonpatch.Operation' },
    { name: 'not JSON → 400', body: 'op: add', code: 400, message: "invalid character 'o' looking for beginning of value" },
    { name: 'empty body → 400', body: '', code: 400, message: 'unexpected end of JSON input' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      let err: unknown;
      try {
        jsonPatch(deploy(), c.body);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(StatusError);
      const s = (err as StatusError).status;
      expect(s.code).toBe(c.code);
      if (c.status) expect(s).toEqual(c.status);
      if (c.message) expect(s).toMatchObject({ reason: 'BadRequest', message: c.message });
    });
  }

  it('more than 10000 operations → 413', () => {
    const ops = Array.from({ length: 10001 }, () => ({ op: 'test', path: '/spec/replicas', value: 1 }));
    expect(() => decodeJsonPatch(JSON.stringify(ops))).toThrowError(
      expect.objectContaining({ status: expect.objectContaining({ code: 413, reason: 'RequestEntityTooLarge', message: 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001' }) }),
    );
  });

  it('the library error keeps evanphx wording', () => {
    const ops = decodeJsonPatch('[{"op":"test","path":"/spec/replicas","value":2}]');
    expect(() => applyJsonPatchOps(deploy() as any, ops)).toThrow(new JsonPatchError('testing value /spec/replicas failed: test failed'));
  });
});

describe('JSON pointer tokens', () => {
  const cases = [
    ['a/b', 'a~1b'],
    ['a~b', 'a~0b'],
    ['~/', '~0~1'],
    ['~1', '~01'],
  ];
  for (const [raw, enc] of cases) {
    it(`${raw} ⇄ ${enc}`, () => {
      expect(encodePointerToken(raw)).toBe(enc);
      expect(decodePointerToken(enc)).toBe(raw);
    });
  }
});
