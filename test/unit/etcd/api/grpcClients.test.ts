// The client port driven by the etcd3 npm client and by a raw grpc-js client:
// status codes and messages byte for byte, the `hasleader` metadata, the
// receive limit, and 64-bit ids through a JS client.

import { Metadata, status as GrpcStatus } from '@grpc/grpc-js';
import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Errors } from '../../../../main/etcd/errors';
import { call, rawClient, startHarness, type Harness, type RawClient } from './clientHarness';

const MAX_REQUEST_BYTES = 64 * 1024;

let h: Harness;
let kv: RawClient;
let maintenance: RawClient;
let etcd: Etcd3;

beforeAll(async () => {
  h = await startHarness(MAX_REQUEST_BYTES);
  kv = rawClient(h.endpoint, 'KV', { 'grpc.max_send_message_length': -1 });
  maintenance = rawClient(h.endpoint, 'Maintenance');
  etcd = new Etcd3({ hosts: h.endpoint });
});
afterAll(async () => {
  etcd.close();
  kv.close();
  maintenance.close();
  await h.close();
});

const bytes = (s: string) => Buffer.from(s);
const put = (key: string, value: string) => ({ request_put: { key: bytes(key), value: bytes(value) } });

describe('etcd3 npm client', () => {
  it('puts, gets, lists and deletes', async () => {
    await etcd.put('app/a').value('1');
    await etcd.put('app/b').value('2');
    expect(await etcd.get('app/a').string()).toBe('1');
    expect(await etcd.getAll().prefix('app/').strings()).toEqual({ 'app/a': '1', 'app/b': '2' });
    expect(await etcd.getAll().prefix('app/').count()).toBe(2);
    expect((await etcd.delete().key('app/a')).deleted).toBe('1');
    expect(await etcd.get('app/a').string()).toBeNull();
  });

  it('runs a compare-and-swap txn', async () => {
    await etcd.put('cas').value('old');
    const won = await etcd.if('cas', 'Value', '==', 'old').then(etcd.put('cas').value('new')).commit();
    const lost = await etcd.if('cas', 'Value', '==', 'old').then(etcd.put('cas').value('newer')).commit();
    expect([won.succeeded, lost.succeeded, await etcd.get('cas').string()]).toEqual([true, false, 'new']);
  });

  it('reads member list and status with full 64-bit ids', async () => {
    const members = await etcd.cluster.memberList({});
    const status = await etcd.maintenance.status({});
    expect({
      ids: members.members.map((m) => m.ID),
      memberHeaderRevision: members.header.revision,
      statusMember: status.header.member_id,
      cluster: status.header.cluster_id,
      leader: status.leader,
      version: status.version,
    }).toEqual({
      ids: ['13668033151171901709', '10276657743932975437'],
      memberHeaderRevision: '0',
      statusMember: '13668033151171901709',
      cluster: '15118495548433857066',
      leader: '13668033151171901709',
      version: '3.4.23',
    });
  });

  it('surfaces a member error by its exact text', async () => {
    h.fake.failNext = Errors.compacted();
    await expect(etcd.put('x').value('y')).rejects.toThrow('etcdserver: mvcc: required revision has been compacted');
  });
});

describe('status codes and messages', () => {
  const cases: { name: string; inject?: unknown; req?: object; method?: string; code: number; details: string }[] = [
    { name: 'EtcdError NotFound', inject: Errors.leaseNotFound(), code: GrpcStatus.NOT_FOUND, details: 'etcdserver: requested lease not found' },
    { name: 'EtcdError ResourceExhausted', inject: Errors.noSpace(), code: GrpcStatus.RESOURCE_EXHAUSTED, details: 'etcdserver: mvcc: database space exceeded' },
    { name: 'EtcdError Unavailable', inject: Errors.timeout(), code: GrpcStatus.UNAVAILABLE, details: 'etcdserver: request timed out' },
    { name: 'plain Error → Unknown, raw text', inject: new TypeError('boom'), code: GrpcStatus.UNKNOWN, details: 'boom' },
    { name: 'empty key', req: { key: bytes('') }, code: GrpcStatus.INVALID_ARGUMENT, details: 'etcdserver: key is not provided' },
    {
      name: 'txn with too many ops',
      method: 'Txn',
      req: { success: Array.from({ length: 129 }, (_, i) => put(`k${i}`, 'v')) },
      code: GrpcStatus.INVALID_ARGUMENT,
      details: 'etcdserver: too many operations in txn request',
    },
    {
      name: 'txn putting one key twice',
      method: 'Txn',
      req: { success: [put('dup', '1'), put('dup', '2')] },
      code: GrpcStatus.INVALID_ARGUMENT,
      details: 'etcdserver: duplicate key given in txn request',
    },
    { name: 'txn with an empty op', method: 'Txn', req: { success: [{}] }, code: GrpcStatus.INVALID_ARGUMENT, details: 'etcdserver: key not found' },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      h.fake.failNext = c.inject;
      const { err } = await call(kv, c.method ?? 'Put', c.req ?? { key: bytes('k'), value: bytes('v') });
      h.fake.failNext = undefined;
      expect({ code: err?.code, details: err?.details }).toEqual({ code: c.code, details: c.details });
    });
  }
});

describe('hasleader metadata', () => {
  const withLeaderRequired = () => {
    const md = new Metadata();
    md.set('hasleader', 'true');
    return md;
  };
  const cases = [
    { name: 'leaderless + required → no leader', leader: false, md: withLeaderRequired, code: GrpcStatus.UNAVAILABLE },
    { name: 'leaderless, not required → served', leader: false, md: () => new Metadata(), code: undefined },
    { name: 'leader + required → served', leader: true, md: withLeaderRequired, code: undefined },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      h.fake.leader = c.leader;
      const range = await call(kv, 'Range', { key: bytes('k') }, c.md());
      const status = await call(maintenance, 'Status', {}, c.md());
      h.fake.leader = true;
      expect([range.err?.code, status.err?.code]).toEqual([c.code, c.code]);
      if (c.code !== undefined) expect(range.err?.details).toBe('etcdserver: no leader');
    });
  }
});

describe('on a learner', () => {
  const NOT_FOR_LEARNER = 'etcdserver: rpc not supported for learner';
  const cases = [
    { name: 'serializable Range is served', client: () => kv, method: 'Range', req: { key: bytes('k'), serializable: true }, refused: false },
    { name: 'linearizable Range is refused', client: () => kv, method: 'Range', req: { key: bytes('k') }, refused: true },
    { name: 'Put is refused', client: () => kv, method: 'Put', req: { key: bytes('k'), value: bytes('v') }, refused: true },
    { name: 'Status is served', client: () => maintenance, method: 'Status', req: {}, refused: false },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      h.fake.learner = true;
      const { err } = await call(c.client(), c.method, c.req);
      h.fake.learner = false;
      expect(err ? { code: err.code, details: err.details } : 'served').toEqual(
        c.refused ? { code: GrpcStatus.UNAVAILABLE, details: NOT_FOR_LEARNER } : 'served',
      );
    });
  }
});

describe('request size', () => {
  const cases = [
    { name: 'within max-request-bytes + 512 KiB is accepted', size: MAX_REQUEST_BYTES + 256 * 1024, code: undefined },
    { name: 'beyond max-request-bytes + 512 KiB is refused', size: MAX_REQUEST_BYTES + 512 * 1024 + 1, code: GrpcStatus.RESOURCE_EXHAUSTED },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const { err, res } = await call(kv, 'Put', { key: bytes('big'), value: Buffer.alloc(c.size, 0x61) });
      expect(err?.code).toBe(c.code);
      if (c.code === undefined) expect(res.header.member_id).toBe('13668033151171901709');
    });
  }
});

describe('grpc.health.v1.Health', () => {
  const healthClient = async () => {
    const { loadPackageDefinition, credentials } = await import('@grpc/grpc-js');
    const { loadSync } = await import('@grpc/proto-loader');
    const { protoDir } = await import('../../../../main/common/resources');
    const def = loadSync('health.proto', { includeDirs: [`${protoDir()}/etcd`], keepCase: true, enums: Number, defaults: true });
    const Ctor = (loadPackageDefinition(def) as any).grpc.health.v1.Health;
    return new Ctor(h.endpoint, credentials.createInsecure());
  };

  const cases = [
    { service: '', want: { status: 1 } },
    { service: 'etcdserverpb.KV', want: { code: GrpcStatus.NOT_FOUND, details: 'unknown service' } },
  ];
  for (const c of cases) {
    it(`Check("${c.service}")`, async () => {
      const client = await healthClient();
      const got = await new Promise((resolve) =>
        client.Check({ service: c.service }, (err: any, res: any) => resolve(err ? { code: err.code, details: err.details } : res)),
      );
      client.close();
      expect(got).toEqual(c.want);
    });
  }

  it('Watch("") reports SERVING first', async () => {
    const client = await healthClient();
    const stream = client.Watch({ service: '' });
    const first = await new Promise((resolve) => stream.once('data', resolve));
    stream.cancel();
    stream.on('error', () => {}); // the cancel itself
    client.close();
    expect(first).toEqual({ status: 1 });
  });
});
