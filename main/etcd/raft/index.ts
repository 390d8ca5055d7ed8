// The Raft core's public surface: what the member server and tests import.

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
