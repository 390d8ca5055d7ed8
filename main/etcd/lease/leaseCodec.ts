// Leases in the member's snapshot (snapshotData.ts): the replicated part of
// the lessor, as JSON inside the snapshot header — [[id, ttl], …] with the
// 64-bit id as decimal text. The attached keys are not stored: they are in
// the MVCC image and re-attached on restore (Lessor.restore). A snapshot
// written before leases existed has no such field and means "no leases".

import type { LeaseRecord } from './lessor';

export type EncodedLeases = [id: string, ttl: number][];

export function encodeLeases(records: readonly LeaseRecord[]): EncodedLeases {
  return records.map((r) => [r.id.toString(), r.ttl]);
}

export function decodeLeases(encoded: unknown): LeaseRecord[] {
  if (encoded === undefined || encoded === null) return [];
  if (!Array.isArray(encoded)) throw new Error('snapshot data: leases is not a list');
  return encoded.map((e: unknown) => {
    if (!Array.isArray(e) || typeof e[0] !== 'string' || typeof e[1] !== 'number' || !/^\d+$/.test(e[0])) {
      throw new Error(`snapshot data: bad lease entry ${JSON.stringify(e)}`);
    }
    return { id: BigInt(e[0]), ttl: e[1] };
  });
}
