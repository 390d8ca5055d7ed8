// etcd's gRPC request metrics (go-grpc-prometheus, registered by
// etcdserver/api/v3rpc/grpc.go), with the same names and labels so Grafana
// dashboards built for etcd read them: started and handled counts per
// service/method, handled split by status code name. Kept on the member's
// registry, so /metrics serves them with everything else.

import { Counter, type Registry } from 'prom-client';

const STARTED = 'grpc_server_started_total';
const HANDLED = 'grpc_server_handled_total';
const LABELS = ['grpc_type', 'grpc_service', 'grpc_method'] as const;

/** grpc status code → the name go-grpc-prometheus puts in grpc_code. */
const CODE_NAMES = [
  'OK', 'Canceled', 'Unknown', 'InvalidArgument', 'DeadlineExceeded', 'NotFound', 'AlreadyExists',
  'PermissionDenied', 'ResourceExhausted', 'FailedPrecondition', 'Aborted', 'OutOfRange',
  'Unimplemented', 'Internal', 'Unavailable', 'DataLoss', 'Unauthenticated',
];

export interface CallCounter {
  /** Call when the request arrives. */
  started(): void;
  /** Call once with the final status code. */
  handled(code: number): void;
}

export class GrpcMetrics {
  private readonly startedTotal: Counter<(typeof LABELS)[number]>;
  private readonly handledTotal: Counter<(typeof LABELS)[number] | 'grpc_code'>;

  constructor(registry: Registry) {
    // Two client servers on one registry (a restart in tests) share the counters.
    this.startedTotal =
      (registry.getSingleMetric(STARTED) as Counter<(typeof LABELS)[number]> | undefined) ??
      new Counter({ name: STARTED, help: 'Total number of RPCs started on the server.', labelNames: LABELS, registers: [registry] });
    this.handledTotal =
      (registry.getSingleMetric(HANDLED) as Counter<(typeof LABELS)[number] | 'grpc_code'> | undefined) ??
      new Counter({
        name: HANDLED,
        help: 'Total number of RPCs completed on the server, regardless of success or failure.',
        labelNames: [...LABELS, 'grpc_code'],
        registers: [registry],
      });
  }

  /** Label children are resolved once per method and per code, not per call. */
  forMethod(service: string, method: string, type: 'unary' | 'bidi_stream' | 'server_stream' = 'unary'): CallCounter {
    const started = this.startedTotal.labels(type, service, method);
    const handledByCode = new Map<number, { inc(): void }>();
    const handledTotal = this.handledTotal;
    return {
      started: () => started.inc(),
      handled(code: number) {
        let child = handledByCode.get(code);
        if (child === undefined) {
          child = handledTotal.labels(type, service, method, CODE_NAMES[code] ?? String(code));
          handledByCode.set(code, child);
        }
        child.inc();
      },
    };
  }
}
