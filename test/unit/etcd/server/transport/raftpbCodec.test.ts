import { join } from 'node:path';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { protoDir } from '../../../../../main/common/resources';
import { ConfChangeType, EntryType, MessageType, type Message } from '../../../../../main/etcd/raft/types';
import {
  decodeBatch,
  decodeConfChange,
  decodeEntry,
  decodeHardState,
  decodeMessage,
  decodeSnapshot,
  encodeBatch,
  encodeConfChange,
  encodeEntry,
  encodeHardState,
  encodeMessage,
  encodeSnapshot,
} from '../../../../../main/etcd/server/transport';

const BIG_A = 0x8e9e05c52164694dn; // above 2^63: sign bit set
const BIG_B = (1n << 53n) + 1n; // first integer a double cannot hold
const bytes = (...xs: number[]) => new Uint8Array(xs);

function msg(over: Partial<Message>): Message {
  return {
    type: MessageType.Heartbeat, to: 2n, from: 1n, term: 1, logTerm: 0, index: 0,
    entries: [], commit: 0, reject: false, rejectHint: 0, ...over,
  };
}

const cases: { name: string; m: Message }[] = [
  { name: 'empty heartbeat', m: msg({}) },
  { name: 'heartbeat with commit and 64-bit ids', m: msg({ to: BIG_A, from: BIG_B, term: 7, commit: 42 }) },
  {
    name: 'append with entries',
    m: msg({
      type: MessageType.App, term: 3, logTerm: 2, index: 10, commit: 9,
      entries: [
        { term: 3, index: 11, type: EntryType.Normal, data: new Uint8Array(0) },
        { term: 3, index: 12, type: EntryType.Normal, data: bytes(1, 2, 3, 255) },
        { term: 3, index: 13, type: EntryType.ConfChange, data: bytes(8, 1) },
      ],
    }),
  },
  { name: 'rejected append response with hint', m: msg({ type: MessageType.AppResp, index: 100, reject: true, rejectHint: 57, term: 4 }) },
  { name: 'large term and index', m: msg({ type: MessageType.AppResp, term: 2 ** 40 + 3, index: 2 ** 52 - 1 }) },
  { name: 'vote', m: msg({ type: MessageType.Vote, term: 5, logTerm: 4, index: 33 }) },
  { name: 'pre-vote response rejected', m: msg({ type: MessageType.PreVoteResp, term: 6, reject: true }) },
  { name: 'read index with context', m: msg({ type: MessageType.ReadIndex, context: bytes(0, 0, 0, 0, 0, 0, 0, 9) }) },
  { name: 'timeout-now', m: msg({ type: MessageType.TimeoutNow, term: 9 }) },
  { name: 'heartbeat with empty context', m: msg({ context: new Uint8Array(0) }) },
  {
    name: 'snapshot',
    m: msg({
      type: MessageType.Snap, term: 8,
      snapshot: {
        data: bytes(9, 8, 7),
        metadata: { index: 1000, term: 7, confState: { voters: [1n, BIG_A, BIG_B], learners: [4n] } },
      },
    }),
  },
  {
    name: 'snapshot with empty conf state and data',
    m: msg({ type: MessageType.Snap, snapshot: { data: new Uint8Array(0), metadata: { index: 1, term: 1, confState: { voters: [], learners: [] } } } }),
  },
];

const root = protobuf.loadSync(join(protoDir(), 'pilothouse', 'raftpb.proto'));
const MessagePb = root.lookupType('raftpb.Message');
const EntryPb = root.lookupType('raftpb.Entry');
const HardStatePb = root.lookupType('raftpb.HardState');

const asObject = (t: protobuf.Type, b: Uint8Array) =>
  t.toObject(t.decode(b), { longs: String, bytes: Array, defaults: false, arrays: false });

describe('raftpb codec', () => {
  it.each(cases)('round-trips $name', ({ m }) => {
    const got = decodeMessage(encodeMessage(m));
    expect(got).toEqual(m);
  });

  it('writes the field numbers of raftpb.proto', () => {
    const m = cases.find((c) => c.name === 'snapshot')!.m;
    const o = asObject(MessagePb, encodeMessage(m)) as Record<string, any>;
    expect(o.type).toBe(MessageType.Snap);
    expect(o.to).toBe(m.to.toString());
    expect(o.from).toBe(m.from.toString());
    expect(o.term).toBe('8');
    expect(o.snapshot.metadata.index).toBe('1000');
    expect(o.snapshot.metadata.term).toBe('7');
    expect(o.snapshot.metadata.confState.voters).toEqual(['1', BIG_A.toString(), BIG_B.toString()]);
    expect(o.snapshot.metadata.confState.learners).toEqual(['4']);
    expect(o.snapshot.data).toEqual([9, 8, 7]);

    const app = cases.find((c) => c.name === 'append with entries')!.m;
    const a = asObject(MessagePb, encodeMessage(app)) as Record<string, any>;
    expect([a.logTerm, a.index, a.commit]).toEqual(['2', '10', '9']);
    expect(a.entries[1]).toEqual({ Term: '3', Index: '12', Type: EntryType.Normal, Data: [1, 2, 3, 255] });
    expect(a.entries[2].Type).toBe(EntryType.ConfChange);

    const resp = cases.find((c) => c.name === 'rejected append response with hint')!.m;
    const r = asObject(MessagePb, encodeMessage(resp)) as Record<string, any>;
    expect([r.reject, r.rejectHint]).toEqual([true, '57']);
    const ri = asObject(MessagePb, encodeMessage(cases.find((c) => c.name === 'read index with context')!.m)) as Record<string, any>;
    expect(ri.context).toEqual([0, 0, 0, 0, 0, 0, 0, 9]);
  });

  it('reads what protobufjs writes from the .proto (packed ids, missing fields)', () => {
    const written = MessagePb.encode(
      MessagePb.fromObject({ type: 4, to: BIG_A.toString(), from: '3', term: 12, index: 5, rejectHint: 2, reject: true }),
    ).finish();
    expect(decodeMessage(written)).toEqual(msg({ type: MessageType.AppResp, to: BIG_A, from: 3n, term: 12, index: 5, rejectHint: 2, reject: true }));
    const e = EntryPb.encode(EntryPb.fromObject({ Term: 2, Index: 3, Type: 1, Data: [7] })).finish();
    expect(decodeEntry(e)).toEqual({ term: 2, index: 3, type: EntryType.ConfChange, data: bytes(7) });
  });

  it('round-trips batches in order', () => {
    const batch = cases.map((c) => c.m);
    expect(decodeBatch(encodeBatch(batch))).toEqual(batch);
    expect(decodeBatch(encodeBatch([]))).toEqual([]);
  });

  it('round-trips entries, hard state, snapshots and conf changes', () => {
    const e = { term: 4, index: 99, type: EntryType.Normal, data: bytes(1) };
    expect(decodeEntry(encodeEntry(e))).toEqual(e);
    const hs = { term: 3, vote: BIG_A, commit: 17 };
    expect(decodeHardState(encodeHardState(hs))).toEqual(hs);
    const o = asObject(HardStatePb, encodeHardState(hs)) as Record<string, string>;
    expect(o).toEqual({ term: '3', vote: BIG_A.toString(), commit: '17' });
    const snap = cases.find((c) => c.name === 'snapshot')!.m.snapshot!;
    expect(decodeSnapshot(encodeSnapshot(snap))).toEqual(snap);
    const cc = { id: BIG_B, type: ConfChangeType.AddLearnerNode, nodeId: BIG_A, context: bytes(123) };
    expect(decodeConfChange(encodeConfChange(cc))).toEqual(cc);
  });

  it('rejects truncated input instead of inventing values', () => {
    const b = encodeMessage(msg({ to: BIG_A }));
    expect(() => decodeMessage(b.subarray(0, 5))).toThrow();
  });
});
