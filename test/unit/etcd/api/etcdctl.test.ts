// Debian's etcdctl 3.4 against the client port: output text, JSON headers
// with full 64-bit ids, tables, and the exact error lines.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Errors } from '../../../../main/etcd/errors';
import { ctlError, etcdctl, startHarness, type Harness } from './clientHarness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const ctl = (args: string[], input?: string) => etcdctl(h.endpoint, args, input);

describe('etcdctl key-value commands', () => {
  // Runs in order against one store: revisions advance 2, 3, 4, ...
  const cases: { name: string; args: string[]; input?: string; stdout: string }[] = [
    { name: 'put', args: ['put', 'foo', 'bar'], stdout: 'OK\n' },
    { name: 'get', args: ['get', 'foo'], stdout: 'foo\nbar\n' },
    { name: 'put second key', args: ['put', 'fob', 'baz'], stdout: 'OK\n' },
    { name: 'get --prefix is sorted by key', args: ['get', '--prefix', 'fo'], stdout: 'fob\nbaz\nfoo\nbar\n' },
    { name: 'get --keys-only', args: ['get', '--prefix', 'fo', '--keys-only'], stdout: 'fob\n\nfoo\n\n' },
    { name: 'get --limit', args: ['get', '--prefix', 'fo', '--limit', '1', '--print-value-only'], stdout: 'baz\n' },
    { name: 'put --prev-kv', args: ['put', 'foo', 'qux', '--prev-kv'], stdout: 'OK\nfoo\nbar\n' },
    { name: 'get --rev (old value)', args: ['get', 'foo', '--rev', '2'], stdout: 'foo\nbar\n' },
    { name: 'missing key prints nothing', args: ['get', 'nope'], stdout: '' },
    { name: 'del', args: ['del', 'fob'], stdout: '1\n' },
    { name: 'del of nothing', args: ['del', 'fob'], stdout: '0\n' },
    {
      name: 'txn success branch',
      args: ['txn'],
      input: 'value("foo") = "qux"\n\nput t1 yes\nget foo\n\nput t1 no\n\n',
      stdout: 'SUCCESS\n\nOK\n\nfoo\nqux\n',
    },
    {
      name: 'txn failure branch',
      args: ['txn'],
      input: 'version("foo") = "9"\n\nput t2 yes\n\nput t2 no\n\n',
      stdout: 'FAILURE\n\nOK\n',
    },
    { name: 'compaction', args: ['compaction', '3'], stdout: 'compacted revision 3\n' },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const r = await ctl(c.args, c.input);
      expect({ code: r.code, stdout: r.stdout, err: ctlError(r) }).toEqual({ code: 0, stdout: c.stdout, err: undefined });
    });
  }

  it('-w json carries the header with exact 64-bit ids', async () => {
    const r = await ctl(['get', 'foo', '-w', 'json']);
    const rev = h.fake.store.currentRevision;
    expect(r.stdout.trim()).toBe(
      `{"header":{"cluster_id":15118495548433857066,"member_id":13668033151171901709,"revision":${rev},"raft_term":7},` +
        `"kvs":[{"key":"Zm9v","create_revision":2,"mod_revision":4,"version":2,"value":"cXV4"}],"count":1}`,
    );
  });

  it('del -w json reports the new revision and the count', async () => {
    await ctl(['put', 'gone', 'x']);
    const before = h.fake.store.currentRevision;
    const r = await ctl(['del', 'gone', '-w', 'json']);
    expect(JSON.parse(r.stdout.replace(/(\d{16,})/g, '"$1"'))).toEqual({
      header: { cluster_id: '15118495548433857066', member_id: '13668033151171901709', revision: before + 1, raft_term: 7 },
      deleted: 1,
    });
  });
});

describe('etcdctl errors', () => {
  beforeAll(async () => {
    // Self-contained history: revisions up to 4, compacted at 3.
    const r = await ctl(['put', 'foo', '1']);
    for (let i = 0; i < 3; i++) await ctl(['put', 'foo', String(i)]);
    await ctl(['compaction', String(h.fake.store.currentRevision - 1)]);
    expect(r.code).toBe(0);
  });

  const cases: { name: string; args: string[]; inject?: unknown; want: string }[] = [
    { name: 'empty key on put', args: ['put', '', 'v'], want: 'Error: etcdserver: key is not provided' },
    { name: 'empty key on del', args: ['del', ''], want: 'Error: etcdserver: key is not provided' },
    {
      name: 'ignore-value on a missing key',
      args: ['put', 'missing', '--ignore-value'],
      want: 'Error: etcdserver: key not found',
    },
    { name: 'compacted revision', args: ['get', 'foo', '--rev', '2'], want: 'Error: etcdserver: mvcc: required revision has been compacted' },
    { name: 'future revision', args: ['get', 'foo', '--rev', '999999'], want: 'Error: etcdserver: mvcc: required revision is a future revision' },
    {
      name: 'EtcdError thrown by the member keeps code and text',
      args: ['put', 'a', 'b'],
      inject: Errors.requestTooLarge(),
      want: 'Error: etcdserver: request is too large',
    },
    {
      name: 'other errors surface as Unknown with the raw text',
      args: ['put', 'a', 'b'],
      inject: new Error('raft proposal dropped'),
      want: 'Error: rpc error: code = Unknown desc = raft proposal dropped',
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      h.fake.failNext = c.inject;
      const r = await ctl(c.args);
      h.fake.failNext = undefined;
      expect({ code: r.code, err: ctlError(r) }).toEqual({ code: 1, err: c.want });
    });
  }
});

describe('etcdctl cluster and maintenance', () => {
  it('member list -w table', async () => {
    const r = await ctl(['member', 'list', '-w', 'table']);
    expect(r.stdout).toBe(
      [
        '+------------------+-----------+------+---------------------------------------------+-----------------------+------------+',
        '|        ID        |  STATUS   | NAME |                 PEER ADDRS                  |     CLIENT ADDRS      | IS LEARNER |',
        '+------------------+-----------+------+---------------------------------------------+-----------------------+------------+',
        '| bdae9bbc11dd390d |   started |   m1 |                       http://127.0.0.1:2380 | http://127.0.0.1:2379 |      false |',
        '| 8e9e05c52164694d | unstarted |      | http://127.0.0.1:2480,http://127.0.0.1:2481 |                       |       true |',
        '+------------------+-----------+------+---------------------------------------------+-----------------------+------------+',
        '',
      ].join('\n'),
    );
  });

  it('member list -w json has no header revision and exact ids', async () => {
    const r = await ctl(['member', 'list', '-w', 'json']);
    expect(r.stdout).toContain('"header":{"cluster_id":15118495548433857066,"member_id":13668033151171901709,"raft_term":7}');
    expect(r.stdout).toContain('{"ID":10276657743932975437,"peerURLs":["http://127.0.0.1:2480","http://127.0.0.1:2481"],"isLearner":true}');
  });

  const statusCases = [
    { name: 'with a leader', leader: true, row: '| bdae9bbc11dd390d |  3.4.23 |   20 kB |      true |      false |         7 |         42 |                 41 |        |' },
    {
      name: 'without a leader, ERRORS says so',
      leader: false,
      row: '| bdae9bbc11dd390d |  3.4.23 |   20 kB |     false |      false |         7 |         42 |                 41 | etcdserver: no leader |',
    },
  ];
  for (const c of statusCases) {
    it(`endpoint status -w table ${c.name}`, async () => {
      h.fake.leader = c.leader;
      const r = await ctl(['endpoint', 'status', '-w', 'table']);
      h.fake.leader = true;
      const row = r.stdout.split('\n').find((l) => l.includes(h.endpoint));
      expect(row).toBe(`| ${h.endpoint} ${c.row}`);
    });
  }
});

describe('etcdctl endpoint health', () => {
  it('is healthy when the linearizable get of "health" succeeds', async () => {
    const r = await ctl(['endpoint', 'health']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`^${h.endpoint} is healthy: successfully committed proposal: took = [0-9.]+[µm]?s\\n$`));
  });
});

describe('keepalive', () => {
  it('a call held 10 s while etcdctl pings every 2 s is never cut by GOAWAY', async () => {
    await ctl(['put', 'held', 'qux']);
    h.fake.rangeDelayMs = 10_500;
    const r = await ctl(['--command-timeout=20s', '--keepalive-time=2s', 'get', 'held', '--print-value-only']);
    h.fake.rangeDelayMs = 0;
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 0, stdout: 'qux\n', stderr: '' });
  }, 20_000);
});
