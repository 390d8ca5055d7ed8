// What the console shows for a value stored in etcd: Kubernetes objects
// (protobuf behind the "k8s\0" magic, or JSON) decoded to YAML, values
// encrypted at rest named as such ("k8s:enc:aescbc:v1:key1:" — the key name
// is shown, the payload is not), other text as is, binary as a hex dump.

import { stringify } from 'yaml';
import { decodeStored } from '../kube/codec';

export interface DecodedValue {
  encoding: 'protobuf' | 'json' | 'encrypted' | 'text' | 'binary' | 'empty';
  kind?: string;
  apiVersion?: string;
  yaml: string;
}

const PROTOBUF_MAGIC = Buffer.from('k8s\0', 'latin1');
const ENCRYPTED_PREFIX = 'k8s:enc:';
const HEX_DUMP_LIMIT = 4096;

export function hexDump(data: Buffer, limit = HEX_DUMP_LIMIT): string {
  const lines: string[] = [];
  const n = Math.min(data.length, limit);
  for (let off = 0; off < n; off += 16) {
    const chunk = data.subarray(off, Math.min(off + 16, n));
    const hex = [...chunk].map((b) => b.toString(16).padStart(2, '0')).join(' ');
    const ascii = [...chunk].map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join('');
    lines.push(`${off.toString(16).padStart(8, '0')}  ${hex.padEnd(47)}  ${ascii}`);
  }
  if (data.length > n) lines.push(`… ${data.length - n} more bytes`);
  return lines.join('\n');
}

function isPrintable(text: string): boolean {
  // U+FFFD marks bytes that were not valid UTF-8.
  return !/[\u0000-\u0008\u000e-\u001f\ufffd]/.test(text);
}

export function decodeStoredValue(data: Buffer): DecodedValue {
  if (data.length === 0) return { encoding: 'empty', yaml: '' };
  if (data.subarray(0, 4).equals(PROTOBUF_MAGIC)) {
    // The API server's own codec: the same schema that wrote the value reads it.
    try {
      const obj = decodeStored(data);
      return { encoding: 'protobuf', kind: str(obj.kind), apiVersion: str(obj.apiVersion), yaml: stringify(obj) };
    } catch (err) {
      return { encoding: 'protobuf', yaml: `# undecodable protobuf value: ${(err as Error).message}\n${hexDump(data)}` };
    }
  }
  const head = data.subarray(0, 64).toString('latin1');
  if (head.startsWith(ENCRYPTED_PREFIX)) {
    const [, , provider, version, keyName] = head.split(':');
    return {
      encoding: 'encrypted',
      yaml: `# encrypted at rest: provider ${provider}, ${version}, key "${keyName}"\n# ${data.length} bytes; decrypted only by the API server\n`,
    };
  }
  const text = data.toString('utf8');
  if (text.trimStart().startsWith('{')) {
    try {
      const obj = JSON.parse(text) as Record<string, unknown>;
      return { encoding: 'json', kind: str(obj.kind), apiVersion: str(obj.apiVersion), yaml: stringify(obj) };
    } catch {
      // not JSON after all: fall through to text
    }
  }
  if (isPrintable(text)) return { encoding: 'text', yaml: text };
  return { encoding: 'binary', yaml: hexDump(data) };
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
