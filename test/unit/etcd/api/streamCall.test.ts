// etcd's stream interceptor semantics on a test-only Watch that answers each
// create with `created`: learners refused, `hasleader` refused without a
// leader, and leader-bound streams cut after three leaderless ticks.

import { credentials, Metadata, Server, ServerCredentials, status as GrpcStatus } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcMetrics } from '../../../../main/etcd/api/grpcMetrics';
import { etcdService } from '../../../../main/common/etcdProtos';
import { etcdGrpcPackage } from '../../../support/etcdGrpc';
import { LeaderMonitor, MAX_NO_LEADER_TICKS } from '../../../../main/etcd/api/leaderMonitor';
import { bidiFor } from '../../../../main/etcd/api/streamCall';
import { FakeEtcdServer } from './fakeEtcdServer';

const fake = new FakeEtcdServer();
const leaders = new LeaderMonitor(fake);
const endedBy: string[] = [];
let grpc: Server;
let client: any;

beforeAll(async () => {
  const bidi = bidiFor({ server: fake, metrics: new GrpcMetrics(fake.metrics), leaders }, 'etcdserverpb.Watch');
  grpc = new Server();
  grpc.addService(etcdService('Watch'), {
    Watch: bidi<any, object>('Watch', (call, ended) => {
      call.on('data', (req: any) => call.write({ header: {}, watch_id: Number(req.create_request.watch_id), created: true }));
      return new Promise<void>((resolve) => {
        call.on('end', () => resolve());
        ended.addEventListener('abort', () => {
          endedBy.push(String(ended.reason));
          resolve();
        });
      });
    }),
  });
  const port = await new Promise<number>((res, rej) =>
    grpc.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) => (e ? rej(e) : res(p))),
  );
  const etcdserverpb = etcdGrpcPackage();
  client = new etcdserverpb.Watch(`127.0.0.1:${port}`, credentials.createInsecure());
});
afterAll(() => {
  leaders.stop();
  client.close();
  grpc.forceShutdown();
});

/** Opens a stream, sends one create, and reports what came back first. */
function open(requireLeader: boolean) {
  const md = new Metadata();
  if (requireLeader) md.set('hasleader', 'true');
  const stream = client.Watch(md);
  const events: string[] = [];
  const first = new Promise<string>((resolve) => {
    stream.on('data', (res: any) => {
      events.push(`created ${res.watch_id}`);
      resolve(`created ${res.watch_id}`);
    });
    stream.on('error', (err: any) => {
      events.push(`${err.code} ${err.details}`);
      resolve(`${err.code} ${err.details}`);
    });
  });
  stream.write({ create_request: { key: Buffer.from('k'), watch_id: 7 } });
  return { stream, events, first };
}

const NO_LEADER = `${GrpcStatus.UNAVAILABLE} etcdserver: no leader`;

describe('bidi streams', () => {
  const openCases = [
    { name: 'leader known, leader required: served', leader: true, learner: false, require: true, want: 'created 7' },
    { name: 'no leader, leader not required: served', leader: false, learner: false, require: false, want: 'created 7' },
    { name: 'no leader, leader required: refused', leader: false, learner: false, require: true, want: NO_LEADER },
    {
      name: 'on a learner: refused',
      leader: true,
      learner: true,
      require: false,
      want: `${GrpcStatus.UNAVAILABLE} etcdserver: rpc not supported for learner`,
    },
  ];
  for (const c of openCases) {
    it(c.name, async () => {
      fake.leader = c.leader;
      fake.learner = c.learner;
      const s = open(c.require);
      const got = await s.first;
      s.stream.end();
      fake.leader = true;
      fake.learner = false;
      expect(got).toBe(c.want);
    });
  }

  const lossCases = [
    { name: `leader-bound stream is cut after ${MAX_NO_LEADER_TICKS} leaderless ticks`, require: true, ticks: MAX_NO_LEADER_TICKS, cut: true },
    { name: 'one tick short, it stays', require: true, ticks: MAX_NO_LEADER_TICKS - 1, cut: false },
    { name: 'a stream that did not ask for a leader stays', require: false, ticks: MAX_NO_LEADER_TICKS, cut: false },
  ];
  for (const c of lossCases) {
    it(c.name, async () => {
      endedBy.length = 0;
      const s = open(c.require);
      expect(await s.first).toBe('created 7');
      fake.leader = false;
      for (let i = 0; i < c.ticks; i++) leaders.tick();
      fake.leader = true;
      leaders.tick(); // resets the count for the next case
      await new Promise((r) => setTimeout(r, 100));
      s.stream.end();
      await new Promise((r) => setTimeout(r, 50));
      expect({ events: s.events, endedBy }).toEqual(
        c.cut ? { events: ['created 7', NO_LEADER], endedBy: ['leader lost'] } : { events: ['created 7'], endedBy: [] },
      );
    });
  }
});
