// An in-memory EtcdServer for driving the client port with real clients:
// a real MvccStore behind it, fixed 64-bit ids above 2^53 (so precision loss
// shows), a switchable leader, and a one-shot injected failure.

import { Counter, Registry } from 'prom-client';
import { MvccStore } from '../../../../main/etcd/mvcc/index';
import type {
  CompactionRequest,
  DeleteRangeRequest,
  PutRequest,
  RangeRequest,
  TxnRequest,
} from '../../../../main/etcd/mvcc/types';
import type {
  EtcdServer,
  MemberInfo,
  ResponseHeader,
  StatusInfo,
  WithHeader,
} from '../../../../main/etcd/api/etcdServer';
import type { MemberConfig } from '../../../../main/etcd/server/memberConfig';

export const CLUSTER_ID = 15118495548433857066n; // 0xd1cf6c2ad0b8152a, > 2^63
export const MEMBER_ID = 13668033151171901709n; // 0xbdae9bbc11dd390d
export const PEER_ID = 0x8e9e05c52164694dn;
export const RAFT_TERM = 7;

export class FakeEtcdServer implements EtcdServer {
  readonly store = new MvccStore();
  leader = true;
  /** Thrown (once) by the next KV call instead of serving it. */
  failNext: unknown;
  readonly metrics = new Registry();
  readonly requests: Counter;
  readonly config: MemberConfig;

  constructor(config: Partial<MemberConfig> = {}) {
    this.requests = new Counter({ name: 'fake_requests_total', help: 'requests served', registers: [this.metrics] });
    this.config = {
      name: 'm1',
      dataDir: '/nonexistent',
      listenClientUrls: ['http://127.0.0.1:0'],
      advertiseClientUrls: ['http://127.0.0.1:2379'],
      listenPeerUrls: ['http://127.0.0.1:2380'],
      initialAdvertisePeerUrls: ['http://127.0.0.1:2380'],
      initialCluster: new Map([['m1', ['http://127.0.0.1:2380']]]),
      initialClusterState: 'new',
      initialClusterToken: 'etcd-cluster',
      heartbeatInterval: 100,
      electionTimeout: 1000,
      snapshotCount: 100000,
      quotaBackendBytes: 0,
      maxRequestBytes: 1.5 * 1024 * 1024,
      maxTxnOps: 128,
      ...config,
    };
  }

  private header(revision: number): ResponseHeader {
    return { clusterId: CLUSTER_ID, memberId: MEMBER_ID, revision, raftTerm: RAFT_TERM };
  }

  private serve<T extends { revision: number }>(run: () => T): Promise<WithHeader<T>> {
    this.requests.inc();
    if (this.failNext !== undefined) {
      const err = this.failNext;
      this.failNext = undefined;
      return Promise.reject(err);
    }
    try {
      const result = run();
      return Promise.resolve({ header: this.header(result.revision), result });
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** Delays every Range by this much (holds a call open, e.g. for keepalive pings). */
  rangeDelayMs = 0;

  async range(req: RangeRequest) {
    if (this.rangeDelayMs > 0) await new Promise((r) => setTimeout(r, this.rangeDelayMs));
    return this.serve(() => this.store.range(req));
  }
  put(req: PutRequest) {
    return this.serve(() => this.store.put(req));
  }
  deleteRange(req: DeleteRangeRequest) {
    return this.serve(() => this.store.deleteRange(req));
  }
  txn(req: TxnRequest) {
    return this.serve(() => this.store.txn(req));
  }
  async compact(req: CompactionRequest): Promise<WithHeader<void>> {
    const { header } = await this.serve(() => {
      this.store.compact(req.revision);
      return { revision: this.store.currentRevision };
    });
    return { header, result: undefined };
  }

  async memberList(): Promise<WithHeader<MemberInfo[]>> {
    return {
      header: this.header(0),
      result: [
        { id: MEMBER_ID, name: 'm1', peerUrls: ['http://127.0.0.1:2380'], clientUrls: ['http://127.0.0.1:2379'], isLearner: false },
        { id: PEER_ID, name: '', peerUrls: ['http://127.0.0.1:2480', 'http://127.0.0.1:2481'], clientUrls: [], isLearner: true },
      ],
    };
  }

  async status(): Promise<WithHeader<StatusInfo>> {
    return {
      header: this.header(this.store.currentRevision),
      result: {
        version: '3.4.23',
        dbSize: 20480,
        dbSizeInUse: 16384,
        leader: this.leader ? MEMBER_ID : 0n,
        raftIndex: 42,
        raftTerm: RAFT_TERM,
        raftAppliedIndex: 41,
        errors: [],
        isLearner: false,
      },
    };
  }

  hasLeader(): boolean {
    return this.leader;
  }

  learner = false;
  isLearner(): boolean {
    return this.learner;
  }

  async health(): Promise<{ health: boolean; reason: string }> {
    return this.leader ? { health: true, reason: '' } : { health: false, reason: 'RAFT NO LEADER' };
  }
}
