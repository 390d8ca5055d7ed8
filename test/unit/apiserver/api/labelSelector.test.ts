import { describe, expect, it } from 'vitest';
import { formatLabelSelector, labelSelectorAsSelector, parseLabelSelector } from '../../../../main/apiserver/api/labelSelector';

describe('parseLabelSelector', () => {
  const labels = { app: 'web', tier: 'front', n: '5' };
  it.each([
    ['', true, ''],
    ['app=web', true, 'app=web'],
    ['app==web', true, 'app==web'],
    ['app!=web', false, 'app!=web'],
    ['app in (web, db)', true, 'app in (db,web)'],
    ['app notin (web)', false, 'app notin (web)'],
    ['tier', true, 'tier'],
    ['!tier', false, '!tier'],
    ['!missing', true, '!missing'],
    ['missing!=x', true, 'missing!=x'],
    ['app=web,tier=front', true, 'app=web,tier=front'],
    ['tier=front,app=web', true, 'app=web,tier=front'],
    ['n>3', true, 'n>3'],
    ['n<3', false, 'n<3'],
    ['app=', false, 'app='],
  ])('%s', (sel, match, str) => {
    const s = parseLabelSelector(sel);
    expect(s.matches(labels)).toBe(match);
    expect(s.toString()).toBe(str);
  });

  it.each([
    ['app in', "unable to parse requirement: found '' expected: '('"],
    ['app in (a', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['a b', "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
    ['a=b c', "found 'c', expected: ',' or 'end of string'"],
    ['app=web,', "found '', expected: identifier after ','"],
    [',', "found ',', expected: !, identifier, or 'end of string'"],
    ['app ~ x', "unable to parse requirement: found '~', expected: in, notin, =, ==, !=, gt, lt"],
    ['a@b=c', 'unable to parse requirement: <nil>: Invalid value: "a@b": name part must consist of alphanumeric characters'],
    ['app=x@y', 'unable to parse requirement: values[0][app]: Invalid value: "x@y": a valid label must be an empty string'],
    ['n>x', `unable to parse requirement: values[0]: Invalid value: "x": for 'Gt', 'Lt' operators, the value must be an integer`],
  ])('error for %s', (sel, msg) => {
    expect(() => parseLabelSelector(sel)).toThrow(msg);
  });
});

describe('labelSelectorAsSelector', () => {
  it('converts matchLabels and matchExpressions', () => {
    const s = labelSelectorAsSelector({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['front', 'back'] }, { key: 'old', operator: 'DoesNotExist' }] });
    expect(s.toString()).toBe('app=web,!old,tier in (back,front)');
    expect(s.matches({ app: 'web', tier: 'back' })).toBe(true);
    expect(s.matches({ app: 'web', tier: 'back', old: '1' })).toBe(false);
  });
  it('nil selects nothing, empty selects everything', () => {
    expect(labelSelectorAsSelector(undefined).matches({})).toBe(false);
    expect(labelSelectorAsSelector({}).matches({ a: 'b' })).toBe(true);
    expect(formatLabelSelector({})).toBe('<none>');
  });
  it('NewRequirement errors name key and values', () => {
    expect(() => labelSelectorAsSelector({ matchLabels: { 'a b': 'ok' } })).toThrow('key: Invalid value: "a b": name part must consist');
    expect(() => labelSelectorAsSelector({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] })).toThrow(
      "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
    );
  });

  it('rejects unknown operators as kube does', () => {
    expect(() => labelSelectorAsSelector({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] })).toThrow('"Gt" is not a valid label selector operator');
  });
});
