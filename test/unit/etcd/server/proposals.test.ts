// What a client sees from a member that cannot commit: etcd's errors, in etcd's time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeConfigs, putReq, rangeReq, start, stopAll } from './clusterHarness';
import { freePorts } from '../../../support/freePorts';

const ports = await freePorts(6);

describe('a member without a quorum', () => {
  // Only m1 of three runs: it never learns of a leader.
  const { dir, members } = makeConfigs(ports, { heartbeatInterval: 50, electionTimeout: 250 });
  const lone = members[0]!;

  beforeAll(async () => {
    await start(lone);
  });
  afterAll(async () => {
    await stopAll(dir, members);
  });

  it('refuses a request larger than --max-request-bytes at once', async () => {
    const big = 'x'.repeat(lone.config.maxRequestBytes + 1);
    await expect(lone.member!.put(putReq('big', big))).rejects.toThrow('etcdserver: request is too large');
  });

  it('serves serializable reads from local state, and reports no leader', async () => {
    const r = await lone.member!.range(rangeReq('anything', true));
    expect(r.result.count).toBe(0);
    const status = (await lone.member!.status()).result;
    expect(status.errors).toEqual(['etcdserver: no leader']);
    expect(lone.member!.hasLeader()).toBe(false);
    expect((await lone.member!.health()).health).toBe(false);
  });

  it('blocks a write until the request timeout (5 s + 2 × election), then times out', async () => {
    const started = Date.now();
    await expect(lone.member!.put(putReq('k', 'v'))).rejects.toThrow('etcdserver: request timed out');
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(5500 - 50);
    expect(waited).toBeLessThan(5500 + 1000);
  });

  it('times out a linearizable read the same way', async () => {
    await expect(lone.member!.range(rangeReq('k'))).rejects.toThrow('etcdserver: request timed out');
  });

  it('fails pending requests with "server stopped" when stopped', async () => {
    const pending = expect(lone.member!.put(putReq('k', 'v'))).rejects.toThrow('etcdserver: server stopped');
    const member = lone.member!;
    await member.stop();
    lone.member = undefined;
    await pending;
    await expect(member.closed).resolves.toBeUndefined();
    await expect(member.put(putReq('k', 'v'))).rejects.toThrow('etcdserver: server stopped');
  });
});
