import { describe, expect, test } from 'vitest';
import { canonicalQuantity, fromProto, toProto } from '../../../../main/kube/schema/index';

// Expected values are what kube echoes back for these inputs
// (apimachinery resource.Quantity String(), quantity_test.go).
describe('canonical quantities', () => {
  const cases: [string | number, string][] = [
    ['1000m', '1'],
    ['0.5', '500m'],
    ['.5', '500m'],
    ['1.5', '1500m'],
    ['100m', '100m'],
    ['0.1', '100m'],
    ['1', '1'],
    ['+1', '1'],
    ['01', '1'],
    ['1.0', '1'],
    ['2000', '2k'],
    ['1500', '1500'],
    ['1000k', '1M'],
    ['128974848', '128974848'],
    ['129M', '129M'],
    ['1e3', '1e3'],
    ['1E6', '1e6'],
    ['1e-3', '1e-3'],
    ['1000e-3', '1'],
    ['123Mi', '123Mi'],
    ['1Gi', '1Gi'],
    ['1024Mi', '1Gi'],
    ['2048Ki', '2Mi'],
    ['1.5Gi', '1536Mi'],
    ['1.5Ki', '1536'],
    ['0.5Ki', '512'],
    ['0.1Gi', '107374182400m'],
    ['1023Ki', '1023Ki'],
    ['-1Gi', '-1Gi'],
    ['-500m', '-500m'],
    ['0', '0'],
    ['0Mi', '0'],
    ['0.0000000001', '1n'],
    [' 1Gi ', '1Gi'],
    [2, '2'],
    [0.25, '250m'],
  ];
  for (const [input, want] of cases) {
    test(`${JSON.stringify(input)} → ${want}`, () => expect(canonicalQuantity(input)).toBe(want));
  }

  test('invalid quantities fail with kube\'s messages', () => {
    expect(() => canonicalQuantity('512 MB')).toThrow("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    expect(() => canonicalQuantity('1KB')).toThrow('quantities must match the regular expression');
    expect(() => canonicalQuantity('1K')).toThrow("unable to parse quantity's suffix");
  });

  test('stored quantities come back canonical, as kube echoes them', () => {
    const m = 'k8s.io.api.core.v1.ResourceRequirements';
    expect(fromProto(m, toProto(m, { limits: { cpu: '1000m', memory: '1.5Gi' }, requests: { cpu: 0.5 } }))).toEqual({
      limits: { cpu: '1', memory: '1536Mi' },
      requests: { cpu: '500m' },
    });
  });
});
