import { describe, expect, it } from 'vitest';
import { checkSettingsKnown, parseSetting, settingChanges, withSettings } from '../../../main/upgrade/flagSettings';
import { componentOf, flagValue } from '../../../main/upgrade/planeSurvey';

describe('--set COMPONENT.FLAG=VALUE', () => {
  it('parses the component, flag and value (the value may hold = and commas)', () => {
    expect(parseSetting('etcd.quota-backend-bytes=8589934592')).toEqual({ kind: 'etcd', flag: 'quota-backend-bytes', value: '8589934592' });
    expect(parseSetting('apiserver.admission-control-config-file=/a=b,c')).toEqual({ kind: 'apiserver', flag: 'admission-control-config-file', value: '/a=b,c' });
    expect(parseSetting('controllers.nodes=5')).toEqual({ kind: 'controllers', flag: 'nodes', value: '5' });
  });
  for (const bad of ['quota-backend-bytes=1', 'kubelet.x=1', 'etcd.=1', 'etcd.Quota=1', 'etcd.quota-backend-bytes']) {
    it(`refuses ${bad}`, () => expect(() => parseSetting(bad)).toThrow(/want COMPONENT\.FLAG=VALUE/));
  }
  for (const owned of ['etcd.name=x', 'etcd.data-dir=/x', 'etcd.initial-cluster=a=b', 'apiserver.secure-port=1', 'controllers.kubeconfig=/k']) {
    it(`refuses the layout's ${owned}`, () => expect(() => parseSetting(owned)).toThrow(/the plane's layout sets --/));
  }
  it('checks flags against what the target takes', () => {
    const known = new Map([['etcd', new Set(['quota-backend-bytes'])]] as const);
    expect(() => checkSettingsKnown([parseSetting('etcd.quota-backend-bytes=1')], known)).not.toThrow();
    expect(() => checkSettingsKnown([parseSetting('etcd.bogus=1')], known)).toThrow("the target's etcd has no flag --bogus");
    expect(() => checkSettingsKnown([parseSetting('apiserver.v=2')], known)).toThrow("the target's apiserver has no flag --v");
  });
  it('replaces a flag in its own form, or appends it; reports from and to', () => {
    const flags = ['--name', 'm1', '--quota-backend-bytes', '0', '--heartbeat-interval=100', '--client-cert-auth', '--data-dir', '/d'];
    const s = ['etcd.quota-backend-bytes=8', 'etcd.heartbeat-interval=200', 'etcd.snapshot-count=5', 'etcd.client-cert-auth=false'].map(parseSetting);
    expect(withSettings(flags, s)).toEqual(['--name', 'm1', '--quota-backend-bytes', '8', '--heartbeat-interval=200', '--client-cert-auth=false', '--data-dir', '/d', '--snapshot-count=5']);
    expect(settingChanges(flags, s, 'etcd')).toEqual([
      { flag: 'quota-backend-bytes', from: '0', to: '8' },
      { flag: 'heartbeat-interval', from: '100', to: '200' },
      { flag: 'snapshot-count', to: '5' },
      { flag: 'client-cert-auth', from: 'true', to: 'false' },
    ]);
    expect(settingChanges(flags, s, 'apiserver')).toEqual([]);
  });
});

describe('a component from its command line', () => {
  it('finds the subcommand after cli.js, and a member by --name', () => {
    expect(componentOf(['/usr/bin/node', '/x/out/main/cli.js', 'etcd', '--name', 'm2', '--data-dir', '/d/m2'])).toEqual({
      id: 'm2',
      kind: 'etcd',
      program: ['/usr/bin/node', '/x/out/main/cli.js', 'etcd'],
      flags: ['--name', 'm2', '--data-dir', '/d/m2'],
    });
    expect(componentOf(['/usr/bin/node', '--max-semi-space-size=32', '/x/out/main/cli.js', 'apiserver', '--secure-port=6443'])?.program).toEqual(['/usr/bin/node', '--max-semi-space-size=32', '/x/out/main/cli.js', 'apiserver']);
    expect(componentOf(['/usr/bin/node', '/x/out/main/cli.js', 'web'])).toBeUndefined();
    expect(componentOf(['/bin/sh', '-c', 'etcd'])).toBeUndefined();
  });
  it('reads a flag in any of its forms', () => {
    expect(flagValue(['--name', 'a'], 'name')).toBe('a');
    expect(flagValue(['--name=b'], 'name')).toBe('b');
    expect(flagValue(['-name', 'c'], 'name')).toBe('c');
    expect(flagValue(['--named', 'x'], 'name')).toBeUndefined();
  });
});
