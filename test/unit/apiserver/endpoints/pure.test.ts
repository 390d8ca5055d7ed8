import { describe, expect, it } from 'vitest';
import { negotiateOutput, outputContentType } from '../../../../main/apiserver/endpoints/outputFormat';
import { goJsonError, bodyFormat } from '../../../../main/apiserver/endpoints/requestBody';
import { finalizersFor } from '../../../../main/apiserver/registry/store/delete';
import { watchTimeoutMs } from '../../../../main/apiserver/endpoints/watch';
import { shouldDeleteDuringUpdate } from '../../../../main/apiserver/registry/store/update';
import { defaultManager } from '../../../../main/apiserver/endpoints/writeOptions';
import { parseIncludeObject } from '../../../../main/apiserver/endpoints/table';
import { StatusError } from '../../../../main/apiserver/api/status';
import type { KObject } from '../../../../main/kube/object';

describe('negotiateOutput', () => {
  const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
  const cases = [
    { name: 'no Accept', accept: undefined, list: true, want: { kind: 'object', serialization: 'json' }, ct: 'application/json' },
    { name: 'kubectl get (Table)', accept: TABLE, list: true, want: { kind: 'table', version: 'v1' }, ct: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
    { name: 'v1beta1 Table', accept: 'application/json;as=Table;v=v1beta1;g=meta.k8s.io', list: false, want: { kind: 'table', version: 'v1beta1' }, ct: 'application/json;as=Table;v=v1beta1;g=meta.k8s.io' },
    { name: 'protobuf first, then JSON', accept: 'application/vnd.kubernetes.protobuf,application/json', list: false, want: { kind: 'object', serialization: 'json' }, ct: 'application/json' },
    { name: 'YAML', accept: 'application/yaml', list: false, want: { kind: 'object', serialization: 'yaml' }, ct: 'application/yaml' },
    { name: 'partial list', accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io', list: true, want: { kind: 'partial', list: true }, ct: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io' },
    { name: 'wildcard', accept: '*/*', list: true, want: { kind: 'object', serialization: 'json' }, ct: 'application/json' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const o = negotiateOutput(c.accept, c.list);
      expect(o).toMatchObject(c.want);
      expect(outputContentType(o)).toBe(c.ct);
    });
  }
  it('406 when nothing producible is acceptable', () => {
    expect(() => negotiateOutput('application/vnd.kubernetes.protobuf', false)).toThrow(StatusError);
    expect(() => negotiateOutput('application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io', false)).toThrow(StatusError);
  });
});

describe('goJsonError (Go encoding/json wording)', () => {
  const cases: [string, string][] = [
    ['{bad', "invalid character 'b' looking for beginning of object key string"],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['[1 2]', "invalid character '2' after array element"],
    ['{} x', "invalid character 'x' after top-level value"],
    ['xyz', "invalid character 'x' looking for beginning of value"],
    ['{"a":', 'unexpected end of JSON input'],
  ];
  for (const [text, want] of cases) {
    it(JSON.stringify(text), () => {
      let msg = '';
      try {
        JSON.parse(text);
      } catch (e) {
        msg = (e as Error).message;
      }
      expect(goJsonError(text, msg)).toBe(want);
    });
  }
});

describe('bodyFormat', () => {
  it('accepts JSON, YAML and protobuf, reads a body without Content-Type as JSON; 415 otherwise', () => {
    expect(bodyFormat(undefined)).toBe('application/json');
    expect(bodyFormat('')).toBe('application/json');
    expect(bodyFormat('application/json; charset=utf-8')).toBe('application/json');
    expect(bodyFormat('application/yaml')).toBe('application/yaml');
    expect(bodyFormat('application/vnd.kubernetes.protobuf')).toBe('application/vnd.kubernetes.protobuf');
    try {
      bodyFormat('text/plain');
      expect.unreachable();
    } catch (e) {
      expect((e as StatusError).status.code).toBe(415);
      expect((e as StatusError).status.message).toBe(
        'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
      );
    }
  });
});

describe('finalizersFor (delete propagation)', () => {
  const obj = (finalizers?: string[]): KObject => ({ metadata: { name: 'x', finalizers } });
  const cases = [
    { name: 'background, none', obj: obj(), opts: { propagationPolicy: 'Background' as const }, want: [] },
    { name: 'foreground adds foregroundDeletion', obj: obj(['a']), opts: { propagationPolicy: 'Foreground' as const }, want: ['a', 'foregroundDeletion'] },
    { name: 'orphan replaces foreground', obj: obj(['foregroundDeletion']), opts: { propagationPolicy: 'Orphan' as const }, want: ['orphan'] },
    { name: 'orphanDependents=true', obj: obj(), opts: { orphanDependents: true }, want: ['orphan'] },
    { name: 'background removes both', obj: obj(['orphan', 'foregroundDeletion', 'b']), opts: { propagationPolicy: 'Background' as const }, want: ['b'] },
    { name: 'no policy keeps what is there', obj: obj(['orphan']), opts: {}, want: ['orphan'] },
  ];
  for (const c of cases) it(c.name, () => expect(finalizersFor(c.obj, { dryRun: false, ...c.opts })).toEqual(c.want));
});

describe('watchTimeoutMs', () => {
  it('uses timeoutSeconds when given, else [1800 s, 3600 s)', () => {
    expect(watchTimeoutMs(5)).toBe(5000);
    expect(watchTimeoutMs(undefined, () => 0)).toBe(1_800_000);
    expect(watchTimeoutMs(0, () => 0.999999)).toBe(3_599_000);
  });
});

describe('shouldDeleteDuringUpdate', () => {
  const m = (meta: KObject['metadata']): KObject => ({ metadata: meta });
  const cases = [
    { name: 'finalizers left', obj: m({ finalizers: ['a'] }), old: m({ deletionTimestamp: 't', deletionGracePeriodSeconds: 0 }), want: false },
    { name: 'not being deleted', obj: m({}), old: m({}), want: false },
    { name: 'last finalizer removed', obj: m({}), old: m({ deletionTimestamp: 't', deletionGracePeriodSeconds: 0, finalizers: ['a'] }), want: true },
    { name: 'graceful pod still in its grace period', obj: m({}), old: m({ deletionTimestamp: 't', deletionGracePeriodSeconds: 30 }), want: false },
  ];
  for (const c of cases) it(c.name, () => expect(shouldDeleteDuringUpdate(c.obj, c.old)).toBe(c.want));
});

describe('small parsers', () => {
  it('defaultManager takes the User-Agent up to its first slash', () => {
    expect(defaultManager('kubectl/v1.32.4 (linux/amd64) kubernetes/abc')).toBe('kubectl');
    expect(defaultManager(undefined)).toBe('unknown');
  });
  it('includeObject', () => {
    expect(parseIncludeObject(null)).toBe('Metadata');
    expect(parseIncludeObject('Object')).toBe('Object');
    expect(() => parseIncludeObject('All')).toThrow('includeObject: Unsupported value: "All"');
  });
});
