import { describe, expect, it } from 'vitest';
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue, regexError } from '../../../../main/apiserver/api/validation/names';
import { validateObjectMeta } from '../../../../main/apiserver/api/validation/objectMeta';
import { nameIsDNSSubdomain } from '../../../../main/apiserver/api/validation/names';
import { fieldErrorBody } from '../../../../main/apiserver/api/status';

const subdomainMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const labelMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

describe('name rules', () => {
  it.each([
    ['nginx', []],
    ['a.b-c', []],
    ['Nginx', [subdomainMsg]],
    ['-x', [subdomainMsg]],
    ['x'.repeat(254), ['must be no more than 253 characters']],
  ])('DNS-1123 subdomain %s', (v, want) => expect(isDNS1123Subdomain(v)).toEqual(want));

  it.each([
    ['web', []],
    ['a.b', ['must not contain dots']],
    ['A', [labelMsg]],
    ['x'.repeat(64), ['must be no more than 63 characters']],
  ])('DNS-1123 label %s', (v, want) => expect(isDNS1123Label(v)).toEqual(want));

  it('DNS-1035 label rejects a leading digit with the regex text', () => {
    expect(isDNS1035Label('1svc')).toEqual([
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ]);
    expect(isDNS1035Label('svc-1')).toEqual([]);
  });

  it.each([
    ['app', 0],
    ['example.com/app', 0],
    ['/app', 1],
    ['a/b/c', 1],
    ['app-', 1],
    ['Example.com/x', 1],
  ])('qualified name %s has %d problems', (v, n) => expect(isQualifiedName(v)).toHaveLength(n));

  it('qualified name messages', () => {
    expect(isQualifiedName('/app')).toEqual(['prefix part must be non-empty']);
    expect(isQualifiedName('app-')[0]).toBe(
      `name part ${regexError("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]', 'MyName', 'my.name', '123-abc')}`,
    );
  });

  it('label values', () => {
    expect(isValidLabelValue('')).toEqual([]);
    expect(isValidLabelValue('v1.2_x')).toEqual([]);
    expect(isValidLabelValue('-bad')).toHaveLength(1);
    expect(isValidLabelValue('x'.repeat(64))[0]).toBe('must be no more than 63 characters');
  });
});

describe('validateObjectMeta', () => {
  const body = (errs: ReturnType<typeof validateObjectMeta>) => errs.map((e) => `${e.field}: ${fieldErrorBody(e)}`);
  it.each([
    [{ name: 'ok', namespace: 'default' }, true, []],
    [{ namespace: 'default' }, true, ['metadata.name: Required value: name or generateName is required']],
    [{ name: 'ok' }, true, ['metadata.namespace: Required value']],
    [{ name: 'ok', namespace: 'x' }, false, ['metadata.namespace: Forbidden: not allowed on this type']],
    [{ name: 'Bad', namespace: 'default' }, true, [`metadata.name: Invalid value: "Bad": ${subdomainMsg}`]],
    [{ name: 'ok', namespace: 'default', labels: { 'a b': 'x' } }, true, [expect.stringContaining('metadata.labels: Invalid value: "a b": name part must consist')]],
    [{ name: 'ok', namespace: 'default', generateName: 'web-' }, true, []],
  ])('%j (namespaced %s)', (meta, namespaced, want) => {
    expect(body(validateObjectMeta(meta, namespaced, nameIsDNSSubdomain))).toEqual(want);
  });
});
