import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeSeen, retargetProgram } from '../../../main/upgrade/apply';
import { isMixed, type ApplyState, type AppliedComponent } from '../../../main/upgrade/applyState';
import { migrationsFor } from '../../../main/upgrade/storageMigration';

describe('retargetProgram', () => {
  it('swaps the cli.js of the build and keeps V8 flags, subcommand and env', () => {
    const p = { command: '/usr/bin/node', args: ['--max-semi-space-size=32', '/old/out/main/cli.js', 'apiserver'], env: { ELECTRON_RUN_AS_NODE: '1' } };
    expect(retargetProgram(p, '/new/out/main/cli.js')).toEqual({ command: '/usr/bin/node', args: ['--max-semi-space-size=32', '/new/out/main/cli.js', 'apiserver'], env: { ELECTRON_RUN_AS_NODE: '1' } });
    expect(retargetProgram(p, undefined)).toBe(p);
  });
});

describe('migrationsFor', () => {
  it('an encryption config migrates the resources it names; a media type change migrates everything; other flags nothing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mig-'));
    try {
      const f = join(dir, 'enc.yaml');
      writeFileSync(f, 'apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n  - resources: [secrets, configmaps]\n    providers: [{identity: {}}]\n  - resources: ["deployments.apps"]\n    providers: [{identity: {}}]\n');
      expect(migrationsFor([{ kind: 'apiserver', flag: 'encryption-provider-config', value: f }])).toEqual([{ resources: ['secrets', 'configmaps', 'deployments.apps'], reason: `--encryption-provider-config=${f}` }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(migrationsFor([{ kind: 'apiserver', flag: 'storage-media-type', value: 'application/json' }])).toEqual([{ resources: ['*.*'], reason: '--storage-media-type=application/json' }]);
    expect(migrationsFor([{ kind: 'etcd', flag: 'quota-backend-bytes', value: '1' }, { kind: 'apiserver', flag: 'max-requests-inflight', value: '9' }])).toEqual([]);
  });
});

describe('isMixed', () => {
  const line = { program: { command: 'node', args: [] }, args: [] };
  const c = (id: string, state: AppliedComponent['state']): AppliedComponent => ({ id, kind: 'etcd', state, previous: line, target: line });
  const st = (components: AppliedComponent[]): ApplyState => ({ runId: 'r', startedAt: '', outcome: 'stopped', settings: [], components });
  it('is mixed while some components run the target and others not', () => {
    expect(isMixed(st([c('m1', 'upgraded'), c('m2', 'rolled-back'), c('m3', 'pending')]))).toBe(true);
    expect(isMixed(st([c('m1', 'upgraded'), c('m2', 'upgraded'), c('m3', 'unchanged')]))).toBe(false);
    expect(isMixed(st([c('m1', 'rolled-back'), c('m2', 'pending')]))).toBe(false);
  });
});

describe('describeSeen', () => {
  it('says the state, the last exit, the health and the log tail', () => {
    expect(describeSeen({ state: 'crashed', pid: 12, restarts: 5, lastExit: { code: 1, signal: null, at: '' }, health: 'no answer', logTail: ['etcdmain: error verifying flags'] })).toEqual([
      'state crashed, pid 12, restarts 5',
      'last exit: code 1',
      'health: no answer',
      'log tail:',
      '  etcdmain: error verifying flags',
    ]);
  });
});
