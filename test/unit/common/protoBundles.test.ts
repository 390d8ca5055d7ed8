// The JSON descriptors the programs load must say exactly what the .proto
// files say, and the gRPC definitions made from them must behave as
// @grpc/proto-loader's do. UPDATE_PROTO_JSON=1 (npm run gen:protos) rewrites
// the JSON from the .proto files.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadSync } from '@grpc/proto-loader';
import type { MethodDefinition } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { ETCD_DECODE, ETCD_SERVICES, etcdClientService, etcdService } from '../../../main/common/etcdProtos';
import { PROTO_BUNDLES, parseProtoBundle, protoBundle, protoBundleJsonPath, type ProtoBundleName } from '../../../main/common/protoBundles';
import { protoDir } from '../../../main/common/resources';

const update = process.env.UPDATE_PROTO_JSON === '1';

describe('proto bundles', () => {
  for (const name of Object.keys(PROTO_BUNDLES) as ProtoBundleName[]) {
    it(`${name}.json is what its .proto files parse to`, () => {
      const want = `${JSON.stringify(parseProtoBundle(name).toJSON(), null, 1)}\n`;
      const path = protoBundleJsonPath(name);
      if (update) {
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, want);
      }
      expect(readFileSync(path, 'utf8'), `${path} is stale: run npm run gen:protos`).toBe(want);
      // and loading it gives back the same description
      expect(JSON.stringify(protoBundle(name).toJSON(), null, 1)).toBe(want.trimEnd());
    });
  }
});

type Method = MethodDefinition<object, object>;

describe('etcd gRPC definitions', () => {
  const reference = loadSync('rpc.proto', { includeDirs: [join(protoDir(), 'etcd')], keepCase: true, ...ETCD_DECODE });

  it('name the same methods, paths and streaming as proto-loader', () => {
    for (const service of ETCD_SERVICES) {
      const ref = reference[`etcdserverpb.${service}`] as unknown as Record<string, Method>;
      const ours = etcdClientService(service) as unknown as Record<string, Method>;
      expect(Object.keys(ours).sort(), service).toEqual(Object.keys(ref).sort());
      for (const [name, m] of Object.entries(ref)) {
        const o = ours[name]!;
        expect({ path: o.path, requestStream: o.requestStream, responseStream: o.responseStream, originalName: o.originalName }).toEqual({
          path: m.path,
          requestStream: m.requestStream,
          responseStream: m.responseStream,
          originalName: m.originalName,
        });
      }
    }
  });

  const samples: [string, string, object][] = [
    ['KV', 'Range', { key: Buffer.from('/registry/pods/'), range_end: Buffer.from('/registry/pods0'), limit: '500', revision: '12', serializable: true }],
    [
      'KV',
      'Txn',
      {
        compare: [{ key: Buffer.from('k'), target: 1, result: 0, mod_revision: '7' }],
        success: [{ request_put: { key: Buffer.from('k'), value: Buffer.from('v'), lease: '7587869471183470594' } }],
        failure: [{ request_range: { key: Buffer.from('k') } }],
      },
    ],
    ['Lease', 'LeaseGrant', { TTL: '15', ID: '0' }],
    ['Cluster', 'MemberAdd', { peerURLs: ['https://127.0.0.1:2380'], isLearner: true }],
    ['Watch', 'Watch', { create_request: { key: Buffer.from('a'), start_revision: '3', filters: [1], prev_kv: true, watch_id: '2' } }],
  ];

  it('encode requests to the same bytes and decode them to the same objects', () => {
    for (const [service, method, value] of samples) {
      const ref = (reference[`etcdserverpb.${service}`] as unknown as Record<string, Method>)[method]!;
      const ours = (etcdService(service as (typeof ETCD_SERVICES)[number]) as unknown as Record<string, Method>)[method]!;
      const bytes = ref.requestSerialize(value);
      expect(Buffer.from(ours.requestSerialize(value)).toString('hex'), `${service}.${method}`).toBe(Buffer.from(bytes).toString('hex'));
      expect(ours.requestDeserialize(bytes)).toEqual(ref.requestDeserialize(bytes));
    }
  });

  it('a member encodes a plain response object to the bytes proto-loader writes', () => {
    const value = { header: { cluster_id: '18446744073709551615', member_id: '1', revision: '42', raft_term: '3' }, kvs: [{ key: Buffer.from('k'), value: Buffer.from('v'), mod_revision: '42' }], count: '1' };
    const ref = (reference['etcdserverpb.KV'] as unknown as Record<string, Method>).Range!;
    const ours = (etcdService('KV') as unknown as Record<string, Method>).Range!;
    const bytes = Buffer.from(ours.responseSerialize(value));
    expect(bytes.toString('hex')).toBe(Buffer.from(ref.responseSerialize(value)).toString('hex'));
    expect((etcdClientService('KV') as unknown as Record<string, Method>).Range!.responseDeserialize(bytes)).toEqual(ref.responseDeserialize(bytes));
  });
});
