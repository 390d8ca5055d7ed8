// The /v3 JSON gateway; expected bodies are what Debian's etcd 3.4.23
// answers to the same requests (ids here are the fake's, term 7).

import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Errors } from '../../../../main/etcd/errors';
import { startHarness, type Harness } from './clientHarness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

function post(path: string, body: string, method = 'POST'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: h.handle.ports[0], path, method }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const HEADER = (rev: number) =>
  `{"cluster_id":"15118495548433857066","member_id":"13668033151171901709","revision":"${rev}","raft_term":"7"}`;
const KV = '{"key":"Zm9v","create_revision":"2","mod_revision":"2","version":"1","value":"YmFy"}';

describe('/v3 JSON gateway', () => {
  // In order: the put makes revision 2.
  const cases = [
    { name: 'put', path: '/v3/kv/put', body: '{"key":"Zm9v","value":"YmFy"}', status: 200, want: `{"header":${HEADER(2)}}` },
    { name: 'range', path: '/v3/kv/range', body: '{"key":"Zm9v"}', status: 200, want: `{"header":${HEADER(2)},"kvs":[${KV}],"count":"1"}` },
    { name: 'v3beta count_only', path: '/v3beta/kv/range', body: '{"key":"Zm9v","count_only":true}', status: 200, want: `{"header":${HEADER(2)},"count":"1"}` },
    {
      name: 'txn with lowerCamel names and enum names',
      path: '/v3/kv/txn',
      body: '{"compare":[{"key":"Zm9v","result":"EQUAL","target":"VALUE","value":"YmFy"}],"success":[{"requestRange":{"key":"Zm9v"}}]}',
      status: 200,
      want: `{"header":${HEADER(2)},"succeeded":true,"responses":[{"response_range":{"header":{"revision":"2"},"kvs":[${KV}],"count":"1"}}]}`,
    },
    { name: 'delete of nothing', path: '/v3/kv/deleterange', body: '{"key":"bm9wZQ=="}', status: 200, want: `{"header":${HEADER(2)}}` },
    {
      name: 'empty key',
      path: '/v3/kv/range',
      body: '{"key":""}',
      status: 400,
      want: '{"error":"etcdserver: key is not provided","message":"etcdserver: key is not provided","code":3}',
    },
    {
      name: 'future revision',
      path: '/v3/kv/range',
      body: '{"key":"Zm9v","revision":"99"}',
      status: 400,
      want: '{"error":"etcdserver: mvcc: required revision is a future revision","message":"etcdserver: mvcc: required revision is a future revision","code":11}',
    },
    {
      name: 'status',
      path: '/v3/maintenance/status',
      body: '{}',
      status: 200,
      want: `{"header":${HEADER(2)},"version":"3.4.23","dbSize":"20480","leader":"13668033151171901709","raftIndex":"42","raftTerm":"7","raftAppliedIndex":"41","dbSizeInUse":"16384"}`,
    },
    {
      name: 'member list (no header revision)',
      path: '/v3/cluster/member/list',
      body: '{}',
      status: 200,
      want:
        '{"header":{"cluster_id":"15118495548433857066","member_id":"13668033151171901709","raft_term":"7"},"members":[' +
        '{"ID":"13668033151171901709","name":"m1","peerURLs":["http://127.0.0.1:2380"],"clientURLs":["http://127.0.0.1:2379"]},' +
        '{"ID":"10276657743932975437","peerURLs":["http://127.0.0.1:2480","http://127.0.0.1:2481"],"isLearner":true}]}',
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      expect(await post(c.path, c.body)).toEqual({ status: c.status, body: c.want });
    });
  }

  // grpc-gateway v1's code → HTTP status (412 for FailedPrecondition checked against etcd's MemberAdd)
  const mapped = [
    { name: 'FailedPrecondition → 412', inject: Errors.notLeader(), status: 412, code: 9 },
    { name: 'NotFound → 404', inject: Errors.leaseNotFound(), status: 404, code: 5 },
    { name: 'Unavailable → 503', inject: Errors.timeout(), status: 503, code: 14 },
    { name: 'plain error → 500, Unknown', inject: new Error('raft proposal dropped'), status: 500, code: 2 },
  ];
  for (const c of mapped) {
    it(c.name, async () => {
      h.fake.failNext = c.inject;
      const r = await post('/v3/kv/put', '{"key":"Zm9v","value":"YmFy"}');
      h.fake.failNext = undefined;
      const message = (c.inject as Error).message;
      expect(r).toEqual({ status: c.status, body: JSON.stringify({ error: message, message, code: c.code }) });
    });
  }

  const refusals = [
    { name: 'GET is not allowed', path: '/v3/kv/range', method: 'GET', body: '', status: 405 },
    { name: 'v3alpha is gone', path: '/v3alpha/kv/range', method: 'POST', body: '{}', status: 404 },
    { name: 'malformed JSON', path: '/v3/kv/range', method: 'POST', body: 'garbage', status: 400 },
  ];
  for (const c of refusals) {
    it(c.name, async () => {
      const r = await post(c.path, c.body, c.method);
      expect(r.status).toBe(c.status);
      if (c.status === 400) expect(JSON.parse(r.body)).toMatchObject({ code: 3 });
    });
  }
});
