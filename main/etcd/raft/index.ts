// The Raft core's public surface: what the member server and tests import.
//
// A pure state machine in the etcd-io/raft mould: no timers, no I/O, no
// node:* imports; randomness only from Config.random. The driver (the member
// server's raft loop) owns time, disk and network and follows the contract
// documented at the top of rawNode.ts:
//
//   const node = new RawNode({ id, storage, electionTick, heartbeatTick, ... });
//   node.bootstrap(peers)            // brand-new cluster only
//   node.tick() / node.step(msg) / node.propose(data) / node.readIndex(ctx)
//   while (node.hasReady()) {
//     const rd = node.ready();
//     persist rd.snapshot, rd.entries, rd.hardState  → then send rd.messages
//     apply rd.snapshot, rd.committedEntries (ConfChange: node.applyConfChange)
//     node.advance(rd);
//   }

export * from './types';
export * from './config';
export * from './errors';
export { RawNode } from './rawNode';
export { MemoryStorage } from './memoryStorage';
export { encodeConfChange, decodeConfChange } from './confChangeCodec';
export {
  isEmptyHardState,
  isEmptySnapshot,
  isHardStateEqual,
  describeEntry,
  describeMessage,
  describeHardState,
  describeConfState,
  describeReady,
  describeStatus,
} from './util';
export { CAMPAIGN_TRANSFER } from './campaign';
