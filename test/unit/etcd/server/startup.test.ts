// A fresh cluster elects within a few heartbeats of its peers connecting
// (etcd's initial election tick advance), not after a full election timeout.
import { afterAll, describe, expect, it } from 'vitest';
import { agreedLeader, makeConfigs, start, stopAll } from './clusterHarness';
import { freePorts } from '../../../support/freePorts';

const ports = await freePorts(6);

describe('fresh cluster start', () => {
  // A long election timeout makes the difference visible: without the advance
  // no member can campaign before 30 ticks (3 s); with it, the first of three
  // randomized timeouts in [2, 32) ticks almost always falls far earlier.
  const { dir, members } = makeConfigs(ports, { heartbeatInterval: 100, electionTimeout: 3000 });
  afterAll(async () => {
    await stopAll(dir, members);
  });

  it('elects a leader well before one election timeout', async () => {
    const started = Date.now();
    await Promise.all(members.map((m) => start(m)));
    await agreedLeader(members);
    expect(Date.now() - started).toBeLessThan(3000);
  });
});
