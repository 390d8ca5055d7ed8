// What form a read answers in, from the Accept header, as kube's
// endpoints/handlers/response.go negotiates "transforms": a Table
// (`application/json;as=Table;v=v1;g=meta.k8s.io`, also v1beta1),
// PartialObjectMetadata / PartialObjectMetadataList (metadata only), or the
// object itself as JSON/YAML. Ranges are tried in order; a range we cannot
// produce is skipped; nothing producible is 406.

import { notAcceptable } from '../api/status';
import { parseMediaRanges, serializationOf, type Serialization } from '../server/mediaType';

export type OutputKind =
  | { kind: 'object'; serialization: Serialization }
  | { kind: 'table'; version: 'v1' | 'v1beta1'; serialization: Serialization }
  | { kind: 'partial'; version: 'v1' | 'v1beta1'; list: boolean; serialization: Serialization };

export function negotiateOutput(accept: string | undefined, isList: boolean): OutputKind {
  const ranges = parseMediaRanges(accept);
  if (ranges.length === 0) return { kind: 'object', serialization: 'json' };
  for (const r of ranges) {
    const serialization = serializationOf(r);
    if (!serialization) continue;
    const as = r.params.as;
    if (as === undefined) return { kind: 'object', serialization };
    if (r.params.g !== 'meta.k8s.io' || (r.params.v !== 'v1' && r.params.v !== 'v1beta1')) continue;
    const version = r.params.v;
    if (as === 'Table') return { kind: 'table', version, serialization };
    if (as === 'PartialObjectMetadata' && !isList) return { kind: 'partial', version, list: false, serialization };
    if (as === 'PartialObjectMetadataList' && isList) return { kind: 'partial', version, list: true, serialization };
  }
  throw notAcceptable();
}

/** The Content-Type kube answers a transformed response with. */
export function outputContentType(o: OutputKind): string {
  const base = o.serialization === 'yaml' ? 'application/yaml' : 'application/json';
  if (o.kind === 'table') return `${base};as=Table;v=${o.version};g=meta.k8s.io`;
  if (o.kind === 'partial') return `${base};as=${o.list ? 'PartialObjectMetadataList' : 'PartialObjectMetadata'};v=${o.version};g=meta.k8s.io`;
  return base;
}
