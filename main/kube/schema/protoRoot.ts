// The upstream Kubernetes types (resources/proto/k8s, same packages, names
// and field numbers as k8s.io/api v0.32), loaded once per process from their
// bundle. protobufjs only describes them here; the wire encoding is ours
// (wire.ts), because gogo-protobuf's rules (always-written value fields,
// field order by number) are not what protobufjs would write.

import type protobuf from 'protobufjs';
import { protoBundle } from '../../common/protoBundles';

export function kubeProtoRoot(): protobuf.Root {
  return protoBundle('k8s');
}
