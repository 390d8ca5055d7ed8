// The .proto files the programs use, grouped into bundles that load as one
// protobufjs Root each. Programs load a bundle from its JSON descriptor
// (resources/proto/bundles/<name>.json, protobufjs' own toJSON form), not
// from the .proto text: parsing the text cost every member, the API server
// and `up` a noticeable share of their start, since all of them start at
// once on a small machine. The JSON is generated from the .proto files and
// checked against them by test/unit/common/protoBundles.test.ts
// (`npm run gen:protos` rewrites it).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import { protoDir } from './resources';

interface BundleSpec {
  /** Folder under resources/proto the files and their imports are in. */
  dir: string;
  files: string[];
  /** Field names as written (etcd's TTL, kube's camelCase) rather than protobufjs' camelCase conversion. */
  keepCase: boolean;
}

export const PROTO_BUNDLES = {
  /** etcd's v3 API (rpc.proto imports kv.proto and auth.proto by bare name) and grpc.health.v1. */
  etcd: { dir: 'etcd', files: ['rpc.proto', 'health.proto'], keepCase: true },
  /** Upstream Kubernetes types, imported as upstream writes them ("k8s.io/api/core/v1/generated.proto"). */
  k8s: {
    dir: 'k8s',
    files: [
      'k8s.io/apimachinery/pkg/runtime/generated.proto',
      'k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto',
      'k8s.io/apimachinery/pkg/util/intstr/generated.proto',
      'k8s.io/apimachinery/pkg/api/resource/generated.proto',
      'k8s.io/api/core/v1/generated.proto',
      'k8s.io/api/apps/v1/generated.proto',
      'k8s.io/api/coordination/v1/generated.proto',
      'k8s.io/api/autoscaling/v1/generated.proto',
      'k8s.io/api/rbac/v1/generated.proto',
      'k8s.io/api/authentication/v1/generated.proto',
      'k8s.io/api/authorization/v1/generated.proto',
      'k8s.io/api/admissionregistration/v1/generated.proto',
      'k8s.io/api/storagemigration/v1alpha1/generated.proto',
    ],
    keepCase: true,
  },
  /** What a member proposes through Raft. */
  raftInternal: { dir: 'pilothouse', files: ['raft_internal.proto'], keepCase: false },
  /** The protobuf form of /openapi/v2. */
  gnostic: { dir: 'gnostic', files: ['openapiv2.proto'], keepCase: true },
} satisfies Record<string, BundleSpec>;

export type ProtoBundleName = keyof typeof PROTO_BUNDLES;

export function protoBundleJsonPath(name: ProtoBundleName): string {
  return join(protoDir(), 'bundles', `${name}.json`);
}

/** Parses a bundle's .proto text: what its JSON descriptor is generated from. */
export function parseProtoBundle(name: ProtoBundleName): protobuf.Root {
  const spec: BundleSpec = PROTO_BUNDLES[name];
  const base = join(protoDir(), spec.dir);
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => join(base, target);
  root.loadSync(spec.files, { keepCase: spec.keepCase });
  root.resolveAll();
  return root;
}

const loaded = new Map<ProtoBundleName, protobuf.Root>();

/** A bundle's types, loaded from its JSON descriptor once per process. */
export function protoBundle(name: ProtoBundleName): protobuf.Root {
  let root = loaded.get(name);
  if (!root) {
    root = protobuf.Root.fromJSON(JSON.parse(readFileSync(protoBundleJsonPath(name), 'utf8')) as protobuf.INamespace);
    root.resolveAll();
    loaded.set(name, root);
  }
  return root;
}
