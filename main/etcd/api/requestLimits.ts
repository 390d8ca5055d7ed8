// How large a client request may be: etcd's --max-request-bytes, plus the
// slack its gRPC server allows for framing (etcdserver/api/v3rpc/grpc.go
// sets MaxRecvMsgSize to max-request-bytes + grpcOverheadBytes). Requests
// up to that size reach the server, which refuses those whose proposal is
// larger than max-request-bytes ("etcdserver: request is too large").

/** etcd's v3rpc/grpc.go grpcOverheadBytes. */
export const GRPC_OVERHEAD_BYTES = 512 * 1024;

/** The largest gRPC message the client port takes. */
export function maxGrpcMessageBytes(maxRequestBytes: number): number {
  return maxRequestBytes + GRPC_OVERHEAD_BYTES;
}

/** grpc-go's text for a message over the limit (rpc_util.go recvAndDecompress), code ResourceExhausted. */
export function messageTooLargeText(size: number, limit: number): string {
  return `grpc: received message larger than max (${size} vs. ${limit})`;
}
