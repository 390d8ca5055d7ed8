// grpc.health.v1.Health as etcd 3.4 registers it (v3rpc/grpc.go): the
// overall service "" is SERVING for as long as the client port is up;
// any other service name is unknown, answered as Go's health server does.
// Liveness here means "the port answers gRPC"; /health is the deeper check.

import { status, type ServerWritableStream, type UntypedServiceImplementation } from '@grpc/grpc-js';

const SERVING = 1;
const SERVICE_UNKNOWN = 3;

interface HealthCheckRequest {
  service: string;
}

export function healthService(): UntypedServiceImplementation {
  return {
    Check: (call: { request: HealthCheckRequest }, callback: (err: object | null, res?: object) => void) => {
      if (call.request.service === '') callback(null, { status: SERVING });
      else callback({ code: status.NOT_FOUND, details: 'unknown service' });
    },
    // Sends the status once and holds the stream open; the status never
    // changes while the port is up, and close() ends the stream.
    Watch: (call: ServerWritableStream<HealthCheckRequest, object>) => {
      call.write({ status: call.request.service === '' ? SERVING : SERVICE_UNKNOWN });
    },
  };
}
