// The WAL and snapshot files of one member (`<data-dir>/member/wal`, `member/snap`).
export { Wal, DEFAULT_SEGMENT_BYTES, type WalOptions, type WalContents, type WalSnapshotRef } from './wal';
export type { SegmentReads } from './logReader';
export { Snapshotter } from './snapshotter';
