import { describe, expect, it } from 'vitest';
import { compileFieldSelector, parseFieldSelector } from '../../../../main/apiserver/api/fieldSelector';
import { StatusError } from '../../../../main/apiserver/api/status';

describe('field selectors', () => {
  const fields = { 'metadata.name': 'web', 'spec.nodeName': 'n1', 'status.phase': 'Running' };
  it.each([
    ['metadata.name=web', true],
    ['metadata.name==web', true],
    ['metadata.name!=web', false],
    ['spec.nodeName=n1,status.phase!=Succeeded', true],
    ['spec.nodeName=', false],
    ['', true],
  ])('%s', (sel, want) => expect(parseFieldSelector(sel).matches(fields)).toBe(want));

  it('unescapes values and renders them back', () => {
    const s = parseFieldSelector('metadata.name=a\\,b\\=c');
    expect(s.requirements[0].value).toBe('a,b=c');
    expect(s.toString()).toBe('metadata.name=a\\,b\\=c');
    expect(s.requiresExactMatch('metadata.name')).toBe('a,b=c');
  });

  it.each([
    ['metadata.name=a=b', 'invalid field selector: unescaped character in value: 61'],
    ['metadata.name=a\\x', 'invalid field selector: invalid escape sequence: \\x'],
    ['metadata.name=a\\', 'invalid field selector: invalid escape sequence: \\'],
  ])('escape errors: %s', (sel, msg) => expect(() => parseFieldSelector(sel)).toThrow(msg));

  it('rejects terms without an operator', () => {
    expect(() => parseFieldSelector('metadata.name')).toThrow("invalid selector: 'metadata.name'; can't understand 'metadata.name'");
  });

  it('unsupported field is a 400 with kube text', () => {
    try {
      compileFieldSelector('spec.bogus=1', new Set(['metadata.name']));
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(StatusError);
      expect((e as StatusError).status.code).toBe(400);
      expect((e as StatusError).status.message).toBe('field label not supported: spec.bogus');
    }
  });
});
