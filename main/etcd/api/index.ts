// The member's client port: etcd's v3 gRPC API and its HTTP endpoints on the
// same listener, as etcd serves them (embed/serve.go with cmux). One
// net.Server per --listen-client-urls entry; each connection is routed by its
// first bytes (protocolSniffer.ts) to one grpc-js server (through a
// connection injector, so grpc-js never binds a port itself) or to one Node
// http.Server. https:// URLs put TLS termination (tlsTermination.ts) in
// front of the same routing.
//
// Services are one module each; Watch, Lease, Auth and the rest of
// Maintenance and Cluster are added to `serviceImplementations` as they land.

import { createServer as createHttpServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { Server as GrpcServer, ServerCredentials } from '@grpc/grpc-js';
import type { EtcdServer } from './etcdServer';
import { clusterService } from './clusterService';
import { ConnectionTracker } from './connectionTracker';
import { GrpcMetrics } from './grpcMetrics';
import { clientHttpHandler } from './httpEndpoints';
import { kvService } from './kvService';
import { bindListener, parseListenUrl } from './listenUrl';
import { leaseService } from './leaseService';
import { maintenanceService } from './maintenanceService';
import { etcdService, grpcHealthService, type EtcdServiceName } from '../../common/etcdProtos';
import { healthService } from './healthService';
import { filterClientAuthority } from './http2/authorityFilter';
import type { ServiceImplementations } from './jsonGateway';
import { routeByPreface } from './protocolSniffer';
import { maxGrpcMessageBytes } from './requestLimits';
import { LeaderMonitor } from './leaderMonitor';
import { watchService } from './watchService';
import { alpnRoute, createClientTlsServer, type ClientTlsOptions } from './tlsTermination';
import type { ServiceContext } from './unaryCall';

export { VERSION_BODY } from './httpEndpoints';
export type { ClientTlsOptions } from './tlsTermination';
export { startMetricsServer } from './metricsServer';

export interface ClientServerOptions {
  /** --listen-client-urls, e.g. "http://127.0.0.1:2379"; port 0 picks a free port. */
  listenUrls: string[];
  /** --max-request-bytes (etcd default 1.5 MiB). */
  maxRequestBytes: number;
  /** Required when a listen URL is https://; http:// URLs stay plain. */
  tls?: ClientTlsOptions;
  /** --cors: origins allowed on the HTTP endpoints; absent or ["*"]: all. */
  cors?: readonly string[];
}

export interface ClientServerHandle {
  /** The bound port of each listen URL, in order. */
  ports: number[];
  /**
   * Stops listening, then ends every connection. With graceMs > 0 gRPC
   * connections get GOAWAY first and in-flight calls up to graceMs to finish
   * (etcd's GracefulStop); HTTP/1 connections are dropped at once either way.
   */
  close(graceMs?: number): Promise<void>;
}

/** etcd sends responses of any size (math.MaxInt32). */
const MAX_SEND_BYTES = 2 ** 31 - 1;

export function grpcServerOptions(maxRequestBytes: number): Record<string, number> {
  return {
    'grpc.max_receive_message_length': maxGrpcMessageBytes(maxRequestBytes),
    'grpc.max_send_message_length': MAX_SEND_BYTES,
    // Keepalive is left at grpc-js defaults on purpose: they never answer
    // etcdctl's 2 s client pings with GOAWAY too_many_pings.
  };
}

/** Every implemented service, by name; gRPC and the JSON gateway share them. */
function serviceImplementations(ctx: ServiceContext): ServiceImplementations {
  return {
    KV: kvService(ctx),
    Cluster: clusterService(ctx),
    Maintenance: maintenanceService(ctx),
    Lease: leaseService(ctx),
    Watch: watchService(ctx),
  };
}

export async function startClientServer(server: EtcdServer, opts: ClientServerOptions): Promise<ClientServerHandle> {
  const addresses = opts.listenUrls.map(parseListenUrl);
  for (const a of addresses) {
    if (a.scheme === 'https' && opts.tls === undefined) {
      // etcd's wording (embed/etcd.go configureClientListeners)
      throw new Error(`TLS key/cert (--cert-file, --key-file) must be provided for client url ${a.url} with HTTPS scheme`);
    }
  }

  const grpc = new GrpcServer(grpcServerOptions(opts.maxRequestBytes));
  const ctx: ServiceContext = { server, metrics: new GrpcMetrics(server.metrics), leaders: new LeaderMonitor(server), ...(opts.tls && { forwardTls: opts.tls }) };
  const impls = serviceImplementations(ctx);
  for (const [name, impl] of Object.entries(impls)) grpc.addService(etcdService(name as EtcdServiceName), impl);
  grpc.addService(grpcHealthService(), healthService());
  // Insecure on purpose: TLS, where configured, has already ended in front.
  const injector = grpc.createConnectionInjector(ServerCredentials.createInsecure());
  const http1 = createHttpServer(
    clientHttpHandler(server, { version: true, gateway: impls, maxRequestBytes: opts.maxRequestBytes, ...(opts.cors && { cors: opts.cors }) }),
  );

  const connections = new ConnectionTracker();
  const http1Connections = new ConnectionTracker();
  const track = (socket: Socket) => {
    connections.add(socket);
    // A reset between routing and the chosen server's own listeners must not
    // become an uncaught 'error'; the servers add their handling beside this.
    socket.on('error', () => socket.destroy());
  };
  const routes = {
    // Through the authority filter: etcdctl's URL endpoints send :authority
    // values nghttp2 refuses (http2/authority.ts).
    http2: (s: Socket) => injector.injectConnection(filterClientAuthority(s)),
    http1: (s: Socket) => {
      http1Connections.add(s);
      http1.emit('connection', s);
    },
  };
  const onPlain = (socket: Socket) => {
    track(socket);
    routeByPreface(socket, routes);
  };
  const onSecure = (socket: TLSSocket) => {
    socket.on('error', () => socket.destroy());
    const route = alpnRoute(socket);
    if (route === 'h2') routes.http2(socket);
    else if (route === 'http/1.1') routes.http1(socket);
    else routeByPreface(socket, routes);
  };

  const listeners: NetServer[] = [];
  const close = async (graceMs = 0): Promise<void> => {
    const closed = listeners.map((l) => new Promise<void>((resolve) => l.close(() => resolve())));
    http1Connections.destroyAll();
    ctx.leaders.stop();
    if (graceMs > 0) {
      injector.drain(graceMs);
      await connections.whenEmpty(graceMs);
    }
    injector.destroy();
    grpc.forceShutdown();
    http1.close();
    connections.destroyAll();
    await Promise.all(closed);
  };

  try {
    for (const a of addresses) {
      const l = a.scheme === 'https' ? createClientTlsServer(opts.tls!, track, onSecure) : createNetServer({ noDelay: true }, onPlain);
      listeners.push(await bindListener(l, a));
    }
  } catch (err) {
    await close();
    throw err;
  }
  return { ports: listeners.map((l) => (l.address() as AddressInfo).port), close };
}
