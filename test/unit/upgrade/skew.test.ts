import { describe, expect, it } from 'vitest';
import { checkSkew, compareSemver, parseSemver, type SkewInput } from '../../../main/upgrade/skew';

const plane = (versions: Record<string, string | undefined>): SkewInput['components'] =>
  Object.entries(versions).map(([id, version]) => ({ id, kind: id.startsWith('m') ? 'etcd' : (id as 'apiserver' | 'controllers'), ...(version !== undefined && { version }) }));
const formats = [{ member: 'm1', format: 1 }, { member: 'm2', format: 1 }, { member: 'm3', format: 1 }];
const all = (v: string) => plane({ m1: v, m2: v, m3: v, apiserver: v, controllers: v });
const failures = (input: SkewInput) => checkSkew(input).filter((c) => !c.ok).map((c) => c.message);

describe('semver', () => {
  it('parses and orders as semver does', () => {
    expect(parseSemver('v1.32.0-pilothouse.0.1.0')).toEqual({ major: 1, minor: 32, patch: 0, pre: 'pilothouse.0.1.0' });
    expect(parseSemver('0.1')).toBeUndefined();
    const order = ['0.1.0-rc.1', '0.1.0', '0.1.1', '0.2.0-alpha', '0.2.0', '1.0.0'].map((v) => parseSemver(v)!);
    for (let i = 1; i < order.length; i++) expect(compareSemver(order[i - 1]!, order[i]!)).toBeLessThan(0);
  });
});

describe('version skew policy', () => {
  const cases: { name: string; input: SkewInput; want: RegExp[] }[] = [
    { name: 'one minor up: allowed', input: { components: all('0.1.0'), target: { version: '0.2.0', dataFormat: 1 }, dataFormats: formats }, want: [] },
    { name: 'a patch: allowed', input: { components: all('0.1.0'), target: { version: '0.1.3', dataFormat: 1 }, dataFormats: formats }, want: [] },
    { name: 'the same build: allowed', input: { components: all('0.1.0'), target: { version: '0.1.0', dataFormat: 1 }, dataFormats: formats }, want: [] },
    { name: 'flags only: allowed', input: { components: all('0.1.0'), dataFormats: formats }, want: [] },
    { name: 'two minors up: refused', input: { components: all('0.1.0'), target: { version: '0.3.0', dataFormat: 1 }, dataFormats: formats }, want: [/skips a minor version/] },
    { name: 'a new major: refused', input: { components: all('0.9.0'), target: { version: '1.0.0', dataFormat: 1 }, dataFormats: formats }, want: [/skips a minor version/] },
    { name: 'older than a running component: refused', input: { components: all('0.2.0'), target: { version: '0.1.0', dataFormat: 1 }, dataFormats: formats }, want: [/older than m1's 0\.2\.0: a rollback .* backup/] },
    {
      name: 'a mixed plane finishing its upgrade: allowed, and said',
      input: { components: plane({ m1: '0.2.0', m2: '0.1.0', m3: '0.1.0', apiserver: '0.1.0', controllers: '0.1.0' }), target: { version: '0.2.0', dataFormat: 1 }, dataFormats: formats },
      want: [],
    },
    {
      name: 'controllers newer than the API server: refused',
      input: { components: plane({ m1: '0.2.0', m2: '0.2.0', m3: '0.2.0', apiserver: '0.1.0', controllers: '0.2.0' }), target: { version: '0.2.0', dataFormat: 1 }, dataFormats: formats },
      want: [/controllers \(0\.2\.0\) are newer than the API server \(0\.1\.0\)/],
    },
    {
      name: 'a target that cannot read a data dir: refused',
      input: { components: all('0.2.0'), target: { version: '0.2.1', dataFormat: 1 }, dataFormats: [{ member: 'm1', format: 2 }, { member: 'm2', format: 1 }] },
      want: [/reads data format 1 and older; m1 is at 2/],
    },
    { name: 'a version unknown: refused', input: { components: plane({ m1: '0.1.0', m2: undefined, m3: '0.1.0', apiserver: '0.1.0', controllers: '0.1.0' }), dataFormats: formats }, want: [/version unknown for m2/] },
    { name: 'a target version that is not semver: refused', input: { components: all('0.1.0'), target: { version: 'latest', dataFormat: 1 }, dataFormats: formats }, want: [/not a semantic version/] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = failures(c.input);
      expect(got.length, got.join('\n')).toBe(c.want.length);
      c.want.forEach((re, i) => expect(got[i]).toMatch(re));
    });
  }

  it('names the mixed versions', () => {
    const checks = checkSkew({ components: plane({ m1: '0.2.0', m2: '0.1.0', m3: '0.1.0', apiserver: '0.1.0', controllers: '0.1.0' }), target: { version: '0.2.0', dataFormat: 1 }, dataFormats: formats });
    expect(checks.map((c) => c.message)).toContain('the plane is mixed now (0.2.0, 0.1.0): finishing or rolling back an upgrade');
  });
});
