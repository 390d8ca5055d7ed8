// Debian's etcdctl 3.4 against three in-process members serving the client API.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agreedLeader, makeConfigs, start, stopAll } from './clusterHarness';
import { freePorts } from '../../../support/freePorts';

const ports = await freePorts(6);

const run = promisify(execFile);
const ETCDCTL = '/usr/bin/etcdctl';

describe.runIf(existsSync(ETCDCTL))('etcdctl 3.4 against in-process members', () => {
  const { dir, members } = makeConfigs(ports);
  const endpoints = members.map((m) => m.config.advertiseClientUrls[0]!).join(',');
  // Status dials each endpoint anew with the URL as its :authority; the client
  // server rejects "http://…" there (reported to the API part), so bare host:port.
  const bareEndpoints = members.map((m) => m.config.advertiseClientUrls[0]!.replace('http://', '')).join(',');
  const etcdctl = async (...args: string[]) =>
    (await run(ETCDCTL, [`--endpoints=${endpoints}`, ...args], { env: { ...process.env, ETCDCTL_API: '3' }, timeout: 15_000 })).stdout;

  beforeAll(async () => {
    await Promise.all(members.map((m) => start(m, true)));
    await agreedLeader(members);
    await Promise.all(members.map((m) => m.member!.ready));
  });
  afterAll(async () => {
    await stopAll(dir, members);
  });

  it('puts and gets through different members', async () => {
    expect(await etcdctl('put', 'foo', 'bar')).toBe('OK\n');
    const second = `--endpoints=${members[1]!.config.advertiseClientUrls[0]}`;
    const got = await run(ETCDCTL, [second, 'get', 'foo'], { env: { ...process.env, ETCDCTL_API: '3' } });
    expect(got.stdout).toBe('foo\nbar\n');
  });

  it('lists members with names, client URLs and etcd ids', async () => {
    const list = JSON.parse(await etcdctl('member', 'list', '-w', 'json')) as { members: { name: string; clientURLs: string[] }[] };
    expect(list.members.map((m) => m.name).sort()).toEqual(['m1', 'm2', 'm3']);
    const table = await etcdctl('member', 'list');
    for (const m of members) {
      expect(table).toContain(`${m.member!.id.toString(16)}, started, ${m.name}, ${m.config.listenPeerUrls[0]}, ${m.config.advertiseClientUrls[0]}, false`);
    }
  });

  it('reports status and health', async () => {
    const out = await run(ETCDCTL, [`--endpoints=${bareEndpoints}`, 'endpoint', 'status', '-w', 'json'], { env: { ...process.env, ETCDCTL_API: '3' } });
    const status = JSON.parse(out.stdout) as { Status: { leader: number; raftIndex: number; raftAppliedIndex: number } }[];
    expect(status).toHaveLength(3);
    const leaders = new Set(status.map((s) => String(s.Status.leader)));
    expect(leaders.size).toBe(1);
    for (const s of status) expect(s.Status.raftAppliedIndex).toBeLessThanOrEqual(s.Status.raftIndex);
    const health = await run(ETCDCTL, [`--endpoints=${endpoints}`, 'endpoint', 'health'], { env: { ...process.env, ETCDCTL_API: '3' } });
    expect(health.stderr.match(/is healthy/g)).toHaveLength(3);
  });
});
