// etcd's client-visible errors: one table, gRPC code plus the exact message
// (etcdserver/api/v3rpc/rpctypes/error.go). clientv3 and etcdctl recognise an
// error by its message string, byte for byte; a different text makes etcdctl
// print a raw "rpc error: code = ... desc = ..." line instead.
//
// Modules below the API (mvcc, server) throw EtcdError; the gRPC layer turns
// it into a status with `code` and `message` and nothing else.

/** gRPC status codes used by etcd (subset of @grpc/grpc-js Status). */
export const GrpcCode = {
  OK: 0,
  Unknown: 2,
  InvalidArgument: 3,
  DeadlineExceeded: 4,
  NotFound: 5,
  AlreadyExists: 6,
  PermissionDenied: 7,
  ResourceExhausted: 8,
  FailedPrecondition: 9,
  OutOfRange: 11,
  Unimplemented: 12,
  Unavailable: 14,
  DataLoss: 15,
  Unauthenticated: 16,
} as const;

export type GrpcCodeValue = (typeof GrpcCode)[keyof typeof GrpcCode];

export class EtcdError extends Error {
  constructor(
    readonly code: GrpcCodeValue,
    message: string,
  ) {
    super(message);
    this.name = 'EtcdError';
  }
}

function def(code: GrpcCodeValue, message: string): () => EtcdError {
  return () => new EtcdError(code, message);
}

const C = GrpcCode;

/** Factories, so every throw gets a fresh stack. Compare errors by `message`. */
export const Errors = {
  emptyKey: def(C.InvalidArgument, 'etcdserver: key is not provided'),
  keyNotFound: def(C.InvalidArgument, 'etcdserver: key not found'),
  valueProvided: def(C.InvalidArgument, 'etcdserver: value is provided'),
  leaseProvided: def(C.InvalidArgument, 'etcdserver: lease is provided'),
  tooManyOps: def(C.InvalidArgument, 'etcdserver: too many operations in txn request'),
  duplicateKey: def(C.InvalidArgument, 'etcdserver: duplicate key given in txn request'),
  requestTooLarge: def(C.InvalidArgument, 'etcdserver: request is too large'),
  compacted: def(C.OutOfRange, 'etcdserver: mvcc: required revision has been compacted'),
  futureRev: def(C.OutOfRange, 'etcdserver: mvcc: required revision is a future revision'),
  noSpace: def(C.ResourceExhausted, 'etcdserver: mvcc: database space exceeded'),
  tooManyRequests: def(C.ResourceExhausted, 'etcdserver: too many requests'),

  leaseNotFound: def(C.NotFound, 'etcdserver: requested lease not found'),
  leaseExist: def(C.FailedPrecondition, 'etcdserver: lease already exists'),
  leaseTTLTooLarge: def(C.OutOfRange, 'etcdserver: too large lease TTL'),

  memberExist: def(C.FailedPrecondition, 'etcdserver: member ID already exist'),
  peerURLExist: def(C.FailedPrecondition, 'etcdserver: Peer URLs already exists'),
  memberNotEnoughStarted: def(C.FailedPrecondition, 'etcdserver: re-configuration failed due to not enough started members'),
  memberBadURLs: def(C.InvalidArgument, 'etcdserver: given member URLs are invalid'),
  memberNotFound: def(C.NotFound, 'etcdserver: member not found'),
  memberNotLearner: def(C.FailedPrecondition, 'etcdserver: can only promote a learner member'),
  learnerNotReady: def(C.FailedPrecondition, 'etcdserver: can only promote a learner member which is in sync with leader'),
  tooManyLearners: def(C.FailedPrecondition, 'etcdserver: too many learner members in cluster'),

  noLeader: def(C.Unavailable, 'etcdserver: no leader'),
  notLeader: def(C.FailedPrecondition, 'etcdserver: not leader'),
  leaderChanged: def(C.Unavailable, 'etcdserver: leader changed'),
  notCapable: def(C.Unavailable, 'etcdserver: not capable'),
  stopped: def(C.Unavailable, 'etcdserver: server stopped'),
  timeout: def(C.Unavailable, 'etcdserver: request timed out'),
  timeoutDueToLeaderFail: def(C.Unavailable, 'etcdserver: request timed out, possibly due to previous leader failure'),
  timeoutDueToConnectionLost: def(C.Unavailable, 'etcdserver: request timed out, possibly due to connection lost'),
  timeoutLeaderTransfer: def(C.Unknown, 'etcdserver: request timed out, leader transfer took too long'),
  timeoutWaitAppliedIndex: def(C.Unavailable, 'etcdserver: request timed out, waiting for the applied index took too long'),
  unhealthy: def(C.Unavailable, 'etcdserver: unhealthy cluster'),
  corrupt: def(C.DataLoss, 'etcdserver: corrupt cluster'),
  badLeaderTransferee: def(C.FailedPrecondition, 'etcdserver: bad leader transferee'),
  notSupportedForLearner: def(C.Unavailable, 'etcdserver: rpc not supported for learner'),

  permissionDenied: def(C.PermissionDenied, 'etcdserver: permission denied'),
  invalidAuthToken: def(C.Unauthenticated, 'etcdserver: invalid auth token'),
} as const;

/** Any non-EtcdError becomes Unknown with its raw text, as etcd does for unmapped Go errors. */
export function toEtcdError(err: unknown): EtcdError {
  if (err instanceof EtcdError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new EtcdError(GrpcCode.Unknown, message);
}
