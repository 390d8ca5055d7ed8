// etcd's grpc-gateway on the client port: POST /v3/<service>/<call> with a
// JSON body, answered with JSON (etcd 3.4 serves /v3 and /v3beta; /v3alpha
// is gone). Same handlers as gRPC, so validation, errors and metrics match.
// The JSON is jsonpb's as etcd 3.4.23 emits it, checked against Debian's
// etcd: proto field names, 64-bit integers as strings, bytes as base64, zero
// values left out; errors as {"error","message","code"} with grpc-gateway
// v1's HTTP status for the code. Requests may use proto or lowerCamel names
// and enum names or numbers, as jsonpb accepts.
//
// Size: etcd's gateway hands the decoded request to its own gRPC server, so
// a request whose protobuf is larger than max-request-bytes + 512 KiB gets
// that server's ResourceExhausted ("grpc: received message larger than
// max", HTTP 429), and a smaller one still over max-request-bytes the
// server's "etcdserver: request is too large" (400). The body is read up to
// BODY_FACTOR times that message limit (JSON carries bytes as base64, 4/3 of
// their size, plus field names); a body past that is not read further and
// gets the same 429, naming the bytes it sent, once the rest of it has been
// read and dropped (never kept).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { Metadata, type handleUnaryCall, type ServerUnaryCall, type UntypedServiceImplementation } from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import { GrpcCode } from '../errors';
import { etcdRoot } from '../../common/etcdProtos';
import { maxGrpcMessageBytes, messageTooLargeText } from './requestLimits';

/** path after /v3/ → [service, method, request type] */
const ROUTES: Record<string, [string, string, string]> = {
  'kv/range': ['KV', 'Range', 'RangeRequest'],
  'kv/put': ['KV', 'Put', 'PutRequest'],
  'kv/deleterange': ['KV', 'DeleteRange', 'DeleteRangeRequest'],
  'kv/txn': ['KV', 'Txn', 'TxnRequest'],
  'kv/compaction': ['KV', 'Compact', 'CompactionRequest'],
  'maintenance/status': ['Maintenance', 'Status', 'StatusRequest'],
  'maintenance/alarm': ['Maintenance', 'Alarm', 'AlarmRequest'],
  'maintenance/defragment': ['Maintenance', 'Defragment', 'DefragmentRequest'],
  // etcd 3.4 maps Hash and HashKV to this one path; Hash is what answers
  'maintenance/hash': ['Maintenance', 'Hash', 'HashRequest'],
  'maintenance/transfer-leadership': ['Maintenance', 'MoveLeader', 'MoveLeaderRequest'],
  // etcd 3.4.23 answers the lease calls on both paths (keep-alive is a stream: not here)
  'lease/grant': ['Lease', 'LeaseGrant', 'LeaseGrantRequest'],
  'lease/revoke': ['Lease', 'LeaseRevoke', 'LeaseRevokeRequest'],
  'kv/lease/revoke': ['Lease', 'LeaseRevoke', 'LeaseRevokeRequest'],
  'lease/timetolive': ['Lease', 'LeaseTimeToLive', 'LeaseTimeToLiveRequest'],
  'kv/lease/timetolive': ['Lease', 'LeaseTimeToLive', 'LeaseTimeToLiveRequest'],
  'lease/leases': ['Lease', 'LeaseLeases', 'LeaseLeasesRequest'],
  'kv/lease/leases': ['Lease', 'LeaseLeases', 'LeaseLeasesRequest'],
  'cluster/member/list': ['Cluster', 'MemberList', 'MemberListRequest'],
};

/** grpc-gateway v1 (runtime.HTTPStatusFromCode, as vendored by etcd 3.4). */
const HTTP_STATUS: Record<number, number> = {
  0: 200, 1: 408, 2: 500, 3: 400, 4: 504, 5: 404, 6: 409, 7: 403, 8: 429,
  9: 412, 10: 409, 11: 400, 12: 501, 13: 500, 14: 503, 15: 500, 16: 401,
};

/** The request shape proto-loader hands the handlers (protos.ts). */
const AS_DECODED: protobuf.IConversionOptions = { longs: String, enums: Number, defaults: true, oneofs: true };
const AS_JSON: protobuf.IConversionOptions = { longs: String, enums: String, bytes: String };

/** A JSON body may be this many times the gRPC message limit. */
const BODY_FACTOR = 2;
/** How much of a refused body is read and dropped before the connection is cut. */
const DISCARD_LIMIT_BYTES = 64 * 1024 * 1024;

export type ServiceImplementations = Record<string, UntypedServiceImplementation>;

/** The route for a path, or undefined when the path is not a gateway call. */
export function gatewayRoute(path: string): [string, string, string] | undefined {
  const m = /^\/v3(?:beta)?\/(.+)$/.exec(path);
  return m ? ROUTES[m[1]!] : undefined;
}

export function serveGateway(
  impls: ServiceImplementations,
  route: [string, string, string],
  req: IncomingMessage,
  res: ServerResponse,
  maxRequestBytes: number,
): void {
  const [service, method, requestType] = route;
  const limit = maxGrpcMessageBytes(maxRequestBytes);
  const bodyLimit = BODY_FACTOR * limit;
  const declared = Number(req.headers['content-length']);
  if (declared > bodyLimit) return refuseBody(req, res, declared, limit);
  const chunks: Buffer[] = [];
  let received = 0;
  const onData = (c: Buffer) => {
    received += c.length;
    if (received > bodyLimit) return refuseBody(req, res, received, limit);
    chunks.push(c);
  };
  req.on('data', onData);
  req.on('end', () => {
    if (received > bodyLimit) return;
    let request: object;
    try {
      const body = Buffer.concat(chunks).toString('utf8');
      const type = etcdRoot().lookupType(`etcdserverpb.${requestType}`);
      const json: unknown = body.trim() === '' ? {} : JSON.parse(body);
      const message = type.fromObject(protoNames(type, json) as Record<string, unknown>);
      const size = type.encode(message).len;
      if (size > limit) return sendError(res, GrpcCode.ResourceExhausted, messageTooLargeText(size, limit));
      request = type.toObject(message, AS_DECODED);
    } catch (err) {
      return sendError(res, GrpcCode.InvalidArgument, err instanceof Error ? err.message : String(err));
    }
    const handler = impls[service]?.[method] as handleUnaryCall<object, object> | undefined;
    if (handler === undefined) return sendError(res, GrpcCode.Unimplemented, `unknown method ${method}`);
    const call = { request, metadata: new Metadata() } as ServerUnaryCall<object, object>;
    handler(call, (err, value) => {
      if (err) return sendError(res, err.code ?? GrpcCode.Unknown, err.details ?? ('message' in err ? String(err.message) : ''));
      const responseType = etcdRoot().lookupType(`etcdserverpb.${method === 'Compact' ? 'Compaction' : method}Response`);
      const json = responseType.toObject(responseType.fromObject(value ?? {}), AS_JSON);
      send(res, 200, JSON.stringify(omitZeroValues(json)), { 'Grpc-Metadata-Content-Type': 'application/grpc' });
    });
  });
}

/** Renames lowerCamel JSON keys to the proto field names, recursively. */
function protoNames(type: protobuf.Type, json: unknown): unknown {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return json;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(json)) {
    const field = type.fields[key] ?? type.fieldsArray.find((f) => protobuf.util.camelCase(f.name) === key);
    if (field === undefined) {
      out[key] = value;
      continue;
    }
    const nested = field.resolve().resolvedType;
    const convert = (v: unknown) => (nested instanceof protobuf.Type ? protoNames(nested, v) : v);
    out[field.name] = Array.isArray(value) ? value.map(convert) : convert(value);
  }
  return out;
}

/** jsonpb without EmitDefaults: scalar zero values and empty lists are left out; messages stay. */
function omitZeroValues(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(omitZeroValues);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === false || v === 0 || v === '0' || v === '' || (Array.isArray(v) && v.length === 0)) continue;
    out[k] = omitZeroValues(v);
  }
  return out;
}

/**
 * A body past the limit: the rest is read and dropped, up to
 * DISCARD_LIMIT_BYTES (past that the connection is cut), and answered once
 * it ended, so that a client still writing gets to read the answer instead
 * of a reset.
 */
function refuseBody(req: IncomingMessage, res: ServerResponse, size: number, limit: number): void {
  req.removeAllListeners('data');
  let discarded = 0;
  req.on('data', (c: Buffer) => {
    discarded += c.length;
    if (discarded > DISCARD_LIMIT_BYTES) req.socket.destroy();
  });
  req.once('end', () => sendError(res, GrpcCode.ResourceExhausted, messageTooLargeText(size, limit)));
}

function sendError(res: ServerResponse, code: number, message: string): void {
  send(res, HTTP_STATUS[code] ?? 500, JSON.stringify({ error: message, message, code }));
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), ...headers });
  res.end(body);
}
