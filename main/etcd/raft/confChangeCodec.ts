// A small binary codec for ConfChange, the data of EntryType.ConfChange entries.
//
// Layout (big-endian):
//   byte 0      format version (1)
//   byte 1      ConfChangeType
//   bytes 2-9   nodeId, uint64
//   bytes 10-   context, opaque (the server's member attributes)

import { ConfChangeType, type ConfChange } from './types';

const VERSION = 1;
const HEADER = 10;

export function encodeConfChange(cc: ConfChange): Uint8Array {
  const out = new Uint8Array(HEADER + cc.context.length);
  const view = new DataView(out.buffer);
  out[0] = VERSION;
  out[1] = cc.type;
  view.setBigUint64(2, BigInt.asUintN(64, cc.nodeId));
  out.set(cc.context, HEADER);
  return out;
}

export function decodeConfChange(bytes: Uint8Array): ConfChange {
  if (bytes.length < HEADER) throw new Error(`conf change too short: ${bytes.length} bytes`);
  if (bytes[0] !== VERSION) throw new Error(`unknown conf change format version ${bytes[0]}`);
  const type = bytes[1]!;
  if (ConfChangeType[type] === undefined) throw new Error(`unknown conf change type ${type}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { type, nodeId: view.getBigUint64(2), context: bytes.slice(HEADER) };
}
