// Loads the upstream Kubernetes .proto files (resources/proto/k8s, same
// packages, names and field numbers as k8s.io/api v0.32) once per process.
// protobufjs only parses them here; the wire encoding is ours (wire.ts),
// because gogo-protobuf's rules (always-written value fields, field order by
// number) are not what protobufjs would write.

import { join } from 'node:path';
import protobuf from 'protobufjs';
import { protoDir } from '../../common/resources';

const files = [
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
];

let cached: protobuf.Root | undefined;

export function kubeProtoRoot(): protobuf.Root {
  if (cached) return cached;
  const base = join(protoDir(), 'k8s');
  const root = new protobuf.Root();
  // Imports are written as upstream writes them ("k8s.io/api/core/v1/generated.proto").
  root.resolvePath = (_origin, target) => join(base, target);
  root.loadSync(files, { keepCase: true });
  root.resolveAll();
  return (cached = root);
}
