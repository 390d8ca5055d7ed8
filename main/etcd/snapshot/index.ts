// Snapshot files as etcdutl handles them (status, restore into a new data
// dir, the hash trailer check). This is the one part of the member's code
// other programs may import: the console and `pilothouse snapshot` work on
// snapshot files as etcdutl does, without a running member.
export { hasHashTrailer } from '../snapshotFile';
export { restoreSnapshot } from './restore';
export { formatStatusJson, formatStatusSimple, formatStatusTable, humanizeBytes, snapshotStatus } from './status';
export { readSnapshotContents, type ReadContentsOptions, type SnapshotContents, type SnapshotKeyValue } from './contents';
export { isBoltFile, readSnapshotState, type SnapshotFormat, type SnapshotState } from './snapshotState';
