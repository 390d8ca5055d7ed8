import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EmbeddedCluster } from '../../../main/console/embeddedCluster';
import { LogStore } from '../../../main/controlplane/logStore';
import { Supervisor } from '../../../main/controlplane/supervisor';
import { FakeChild, FakeClock } from '../controlplane/fakeProcess';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup() {
  const dataDir = mkdtempSync(join(tmpdir(), 'embedded-'));
  dirs.push(dataDir);
  const sup = new Supervisor({
    dataDir, portBase: 23520, cliPath: '/opt/pilothouse/cli.js', logs: new LogStore(undefined), apiserver: false,
    clock: new FakeClock(), spawner: () => new FakeChild(),
  });
  return { dataDir, sup, cluster: new EmbeddedCluster(sup) };
}

describe('embedded cluster', () => {
  it('can do every action, and shows the members as the orchestrator lays them out', () => {
    const { cluster } = setup();
    expect(cluster.mode).toBe('embedded');
    expect(cluster.capabilities).toEqual({ processControl: true, snapshotRestore: true });
    expect(cluster.members.map((m) => [m.name, m.clientUrl])).toEqual([
      ['m1', 'https://127.0.0.1:23520'],
      ['m2', 'https://127.0.0.1:23522'],
      ['m3', 'https://127.0.0.1:23524'],
    ]);
    expect(cluster.hasApiServer).toBe(false);
    expect(cluster.apiServerUrl).toBeUndefined();
    expect(cluster.apiServerTlsFiles()).toBeUndefined();
  });

  it('drives the orchestrator processes by id; an unknown id has none', () => {
    const { cluster } = setup();
    expect(cluster.processState('m1')).toBe('stopped');
    cluster.process('m1')!.start();
    expect(cluster.processState('m1')).toBe('starting');
    expect(cluster.components().map((c) => c.state)).toEqual(['starting', 'stopped', 'stopped']);
    expect(cluster.process('apiserver')).toBeUndefined();
    expect(cluster.commandLine('apiserver')).toBeUndefined();
    expect(cluster.commandLine('m2')?.args.slice(0, 2)).toEqual(['--name', 'm2']);
    expect(cluster.processState('m9')).toBeUndefined();
  });

  it('gives terminals the etcdctl variables once the env file exists', () => {
    const { cluster, dataDir } = setup();
    expect(cluster.etcdctlEnv()).toEqual({});
    writeFileSync(join(dataDir, 'etcdctl.env'), 'export ETCDCTL_API=3\nexport ETCDCTL_CACERT=/d/pki/ca.crt\n');
    expect(cluster.etcdctlEnv()).toEqual({ ETCDCTL_API: '3', ETCDCTL_CACERT: '/d/pki/ca.crt' });
    expect(cluster.etcdTlsFiles()).toEqual({ caFile: join(dataDir, 'pki', 'ca.crt'), certFile: join(dataDir, 'pki', 'client.crt'), keyFile: join(dataDir, 'pki', 'client.key') });
  });
});
