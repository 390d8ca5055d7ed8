// etcdserverpb.KV (etcd's v3rpc/key.go): validate as etcd does before
// anything is proposed, delegate to the member, convert the result. The
// member fills the header (it knows the term and the revision served).

import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import { checkDeleteRequest, checkPutRequest, checkRangeRequest, checkTxnRequest } from '../mvcc/index';
import {
  compactionRequestFromWire,
  deleteRangeRequestFromWire,
  deleteRangeResponseToWire,
  headerToWire,
  putRequestFromWire,
  putResponseToWire,
  rangeRequestFromWire,
  rangeResponseToWire,
  txnRequestFromWire,
  txnResponseToWire,
} from './convert';
import { unaryFor, type ServiceContext } from './unaryCall';
import type {
  WireCompactionRequest,
  WireCompactionResponse,
  WireDeleteRangeRequest,
  WireDeleteRangeResponse,
  WirePutRequest,
  WirePutResponse,
  WireRangeRequest,
  WireRangeResponse,
  WireTxnRequest,
  WireTxnResponse,
} from './wire';

export function kvService(ctx: ServiceContext): UntypedServiceImplementation {
  const { server } = ctx;
  const unary = unaryFor(ctx, 'etcdserverpb.KV');
  return {
    Range: unary(
      'Range',
      async (w: WireRangeRequest): Promise<WireRangeResponse> => {
        const req = rangeRequestFromWire(w);
        checkRangeRequest(req);
        const { header, result } = await server.range(req);
        return rangeResponseToWire(headerToWire(header), result);
      },
      // a learner serves only serializable reads: its state may lag
      (w) => w.serializable === true,
    ),

    Put: unary('Put', async (w: WirePutRequest): Promise<WirePutResponse> => {
      const req = putRequestFromWire(w);
      checkPutRequest(req);
      const { header, result } = await server.put(req);
      return putResponseToWire(headerToWire(header), result);
    }),

    DeleteRange: unary('DeleteRange', async (w: WireDeleteRangeRequest): Promise<WireDeleteRangeResponse> => {
      const req = deleteRangeRequestFromWire(w);
      checkDeleteRequest(req);
      const { header, result } = await server.deleteRange(req);
      return deleteRangeResponseToWire(headerToWire(header), result);
    }),

    Txn: unary('Txn', async (w: WireTxnRequest): Promise<WireTxnResponse> => {
      const req = txnRequestFromWire(w);
      checkTxnRequest(req, server.config.maxTxnOps);
      const { header, result } = await server.txn(req);
      return txnResponseToWire(headerToWire(header), result);
    }),

    // No checks: the compacted/future revision errors come from the store.
    Compact: unary('Compact', async (w: WireCompactionRequest): Promise<WireCompactionResponse> => {
      const { header } = await server.compact(compactionRequestFromWire(w));
      return { header: headerToWire(header) };
    }),
  };
}
