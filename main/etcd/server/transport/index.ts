// The Raft peer transport between members. See peerTransport.ts for the
// shape, resources/proto/pilothouse/raftpb.proto for the wire.
//
// Delivery: best effort, like Raft expects. Per sender, messages arrive in
// send order within each stream class: MsgApp on one stream, MsgSnap on its
// own call, everything else (heartbeats, votes, responses, ReadIndex) on
// another, so the classes may overtake each other, as in etcd.

export { PeerTransport, type PeerTransportOptions } from './peerTransport';
export type { PeerTlsOptions } from './peerUrls';
export { STREAM_QUEUE_LIMIT } from './outboundStream';
export {
  encodeMessage,
  decodeMessage,
  encodeBatch,
  decodeBatch,
  encodeEntry,
  decodeEntry,
  encodeHardState,
  decodeHardState,
  encodeSnapshot,
  decodeSnapshot,
  encodeConfState,
  decodeConfState,
  encodeConfChange,
  decodeConfChange,
  type ConfChangeWire,
} from './raftpbCodec';
