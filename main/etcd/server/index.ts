// The etcd member: `startMember(config)` returns a fully running member
// (Raft, WAL, peer transport, client gRPC server). See startMember.ts.
export { startMember } from './startMember';
export { Member } from './member';
export { computeMemberId, computeClusterId, idToHex } from './ids';
export { walDir, snapDir } from './dataDir';
export type { MemberConfig } from './memberConfig';
export type { EtcdServer, MemberInfo, StatusInfo } from '../api/etcdServer';
