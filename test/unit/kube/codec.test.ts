import { describe, expect, test } from 'vitest';
import { decodeStored, jsonCodec, protobufCodec, readEnvelope } from '../../../main/kube/codec';
import type { KObject } from '../../../main/kube/object';
import { messageForGvk, toProto } from '../../../main/kube/schema/index';

// An independent protobuf reader for the tests: varints and length-delimited
// fields by number only (no protobufjs, no schema), so the codec's bytes are
// checked against the wire format itself and the field numbers of
// k8s.io/api v0.32 (reference §2.4).
type Field = { id: number; varint?: bigint; bytes?: Uint8Array };

function parse(buf: Uint8Array): Field[] {
  const out: Field[] = [];
  let pos = 0;
  const varint = (): bigint => {
    let v = 0n;
    let shift = 0n;
    for (;;) {
      const b = buf[pos++];
      v |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return v;
      shift += 7n;
    }
  };
  while (pos < buf.length) {
    const tag = Number(varint());
    const id = tag >> 3;
    const wt = tag & 7;
    if (wt === 0) out.push({ id, varint: varint() });
    else if (wt === 2) {
      const n = Number(varint());
      out.push({ id, bytes: buf.subarray(pos, pos + n) });
      pos += n;
    } else throw new Error(`unexpected wire type ${wt}`);
  }
  return out;
}

const one = (fields: Field[], id: number) => fields.filter((f) => f.id === id).at(-1);
const all = (fields: Field[], id: number) => fields.filter((f) => f.id === id);
const msg = (fields: Field[], id: number) => parse(one(fields, id)!.bytes!);
const str = (fields: Field[], id: number) => Buffer.from(one(fields, id)!.bytes!).toString('utf8');
const num = (fields: Field[], id: number) => Number(one(fields, id)!.varint);
const mapOf = (fields: Field[], id: number) =>
  Object.fromEntries(all(fields, id).map((e) => [str(parse(e.bytes!), 1), str(parse(e.bytes!), 2)]));

const deployment: KObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'nginx',
    namespace: 'default',
    uid: 'abc',
    resourceVersion: '42',
    selfLink: '/apis/apps/v1/namespaces/default/deployments/nginx',
    generation: 2,
    creationTimestamp: '2024-05-01T10:00:00Z',
    labels: { app: 'nginx', tier: 'web' },
  },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: 'nginx' } },
    template: {
      metadata: { labels: { app: 'nginx' } },
      spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', resources: {} }] },
    },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: 1 } },
  },
  status: {},
};

describe('protobuf codec, read by an independent wire parser', () => {
  const bytes = protobufCodec().encode(deployment);

  test('k8s\\0 magic, runtime.Unknown with typeMeta and the gogo `1a 00 22 00` tail', () => {
    expect([...bytes.subarray(0, 4)]).toEqual([0x6b, 0x38, 0x73, 0x00]);
    expect([...bytes.subarray(bytes.length - 4)]).toEqual([0x1a, 0x00, 0x22, 0x00]);
    const unknown = parse(bytes.subarray(4));
    expect(unknown.map((f) => f.id)).toEqual([1, 2, 3, 4]);
    const typeMeta = msg(unknown, 1);
    expect(str(typeMeta, 1)).toBe('apps/v1');
    expect(str(typeMeta, 2)).toBe('Deployment');
  });

  test('the Deployment message carries the fields at their upstream numbers', () => {
    const d = parse(one(parse(bytes.subarray(4)), 2)!.bytes!);
    const meta = msg(d, 1);
    expect(str(meta, 1)).toBe('nginx');
    expect(str(meta, 3)).toBe('default');
    expect(str(meta, 5)).toBe('abc');
    expect(str(meta, 6)).toBe(''); // resourceVersion is never stored
    expect(str(meta, 4)).toBe(''); // nor selfLink
    expect(num(meta, 7)).toBe(2);
    expect(num(msg(meta, 8), 1)).toBe(Date.UTC(2024, 4, 1, 10) / 1000);
    expect(mapOf(meta, 11)).toEqual({ app: 'nginx', tier: 'web' });
    expect(all(meta, 11).map((e) => str(parse(e.bytes!), 1))).toEqual(['app', 'tier']);

    const spec = msg(d, 2);
    expect(num(spec, 1)).toBe(3);
    expect(mapOf(msg(spec, 2), 1)).toEqual({ app: 'nginx' });
    const podSpec = msg(msg(spec, 3), 2);
    const container = parse(all(podSpec, 2)[0].bytes!);
    expect(str(container, 1)).toBe('nginx');
    expect(str(container, 2)).toBe('nginx:1.27');
    const strategy = msg(spec, 4);
    expect(str(strategy, 1)).toBe('RollingUpdate');
    const rolling = msg(strategy, 2);
    const maxUnavailable = msg(rolling, 1);
    expect([num(maxUnavailable, 1), num(maxUnavailable, 2), str(maxUnavailable, 3)]).toEqual([1, 0, '25%']);
    const maxSurge = msg(rolling, 2);
    expect([num(maxSurge, 1), num(maxSurge, 2), str(maxSurge, 3)]).toEqual([0, 1, '']);
  });

  test('fields are written in field-number order at every level', () => {
    const d = parse(one(parse(bytes.subarray(4)), 2)!.bytes!);
    const ids = (f: Field[]) => f.map((x) => x.id);
    const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
    const podSpec = msg(msg(msg(d, 2), 3), 2);
    const container = parse(all(podSpec, 2)[0].bytes!);
    for (const m of [d, msg(d, 1), msg(d, 2), podSpec, container]) expect(ids(m)).toEqual(sorted(ids(m)));
  });

  test('golden bytes for a tiny ConfigMap, worked out by hand', () => {
    const got = protobufCodec().encode({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'd' }, data: { k: 'v' } });
    // ObjectMeta: name "a", generateName "", namespace "d", selfLink "", uid "", resourceVersion "",
    // generation 0, creationTimestamp = empty Time message  → 18 bytes
    const meta = '0a0161 1200 1a0164 2200 2a00 3200 3800 4200';
    // ConfigMap: metadata(1), data(2) entry {key "k", value "v"}; immutable is a pointer: absent
    const raw = `0a12 ${meta} 1206 0a016b 120176`;
    const typeMeta = '0a027631 1209 436f6e6669674d6170'; // "v1", "ConfigMap"
    const want = `6b387300 0a0f ${typeMeta} 121c ${raw} 1a00 2200`.replace(/ /g, '');
    expect(Buffer.from(got).toString('hex')).toBe(want);
  });

  test('decode gives back kube\'s JSON with kind and apiVersion first and no resourceVersion', () => {
    const got = protobufCodec().decode(bytes);
    expect(Object.keys(got).slice(0, 2)).toEqual(['kind', 'apiVersion']);
    expect(got.metadata.resourceVersion).toBeUndefined();
    expect(got.metadata.selfLink).toBeUndefined();
    expect(got.metadata.name).toBe('nginx');
    expect((got.spec as any).template.metadata).toEqual({ creationTimestamp: null, labels: { app: 'nginx' } });
    expect((got.spec as any).strategy.rollingUpdate).toEqual({ maxUnavailable: '25%', maxSurge: 1 });
  });

  test('length prefixes longer than one byte (fields of 128 bytes and more) are exact', () => {
    for (const size of [127, 128, 300, 16_384, 70_000]) {
      const value = 'x'.repeat(size);
      const bytes = protobufCodec().encode({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big', annotations: { a: value } }, data: { k: value } });
      const cm = parse(one(parse(bytes.subarray(4)), 2)!.bytes!);
      expect(str(parse(all(msg(cm, 1), 12)[0].bytes!), 2)).toBe(value);
      expect(mapOf(cm, 2)).toEqual({ k: value });
      expect((protobufCodec().decode(bytes) as any).data.k).toBe(value);
    }
  });

  test('non-ASCII strings are UTF-8 on the wire', () => {
    const bytes = protobufCodec().encode({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'u' }, data: { greeting: 'grüße – 日本 🚀' } });
    const cm = parse(one(parse(bytes.subarray(4)), 2)!.bytes!);
    expect(mapOf(cm, 2)).toEqual({ greeting: 'grüße – 日本 🚀' });
    expect((protobufCodec().decode(bytes) as any).data.greeting).toBe('grüße – 日本 🚀');
  });

  test('the input object is not modified', () => {
    expect(deployment.metadata.resourceVersion).toBe('42');
  });

  test('readEnvelope exposes the runtime.Unknown', () => {
    const env = readEnvelope(bytes);
    expect(env).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment', contentEncoding: '', contentType: '' });
  });
});

describe('protobuf codec: the envelope written in place', () => {
  /** k8s\0 + runtime.Unknown framed field by field from the object's own message bytes. */
  const framed = (apiVersion: string, kind: string, raw: Uint8Array): Buffer => {
    const varint = (n: number): number[] => {
      const out: number[] = [];
      for (; n > 0x7f; n = Math.floor(n / 128)) out.push((n % 128) | 0x80);
      return [...out, n];
    };
    const field = (tag: number, body: Uint8Array | Buffer) => Buffer.from([tag, ...varint(body.length), ...body]);
    const typeMeta = Buffer.concat([field(0x0a, Buffer.from(apiVersion)), field(0x12, Buffer.from(kind))]);
    return Buffer.concat([Buffer.from('k8s\0', 'latin1'), field(0x0a, typeMeta), field(0x12, raw), Buffer.from([0x1a, 0, 0x22, 0])]);
  };
  const cm = (name: string, value: string): KObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { k: value } });

  test('small, large (past the kept buffer) and small again: the same bytes as framing the message apart', () => {
    const codec = protobufCodec();
    for (const [name, size] of [['a', 10], ['b', 40_000], ['c', 3], ['d', 2_000_000], ['e', 200]] as const) {
      const obj = cm(name, 'x'.repeat(size));
      const raw = toProto(messageForGvk({ group: '', version: 'v1', kind: 'ConfigMap' })!, { metadata: obj.metadata, data: obj.data });
      expect(Buffer.from(codec.encode(obj)).equals(framed('v1', 'ConfigMap', raw))).toBe(true);
      expect(codec.decode(codec.encode(obj)).data).toEqual({ k: 'x'.repeat(size) });
    }
  });
});

describe('JSON codec', () => {
  test('compact JSON, kind/apiVersion first, newline-terminated, normalised like kube', () => {
    const text = Buffer.from(jsonCodec().encode(deployment)).toString('utf8');
    expect(text.endsWith('}\n')).toBe(true);
    expect(text.startsWith('{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"nginx"')).toBe(true);
    expect(text).not.toContain('resourceVersion');
    expect(text).not.toContain('selfLink');
    expect(text).toContain('"template":{"metadata":{"creationTimestamp":null');
  });

  test('kinds without a protobuf schema are stored as JSON as-is (like CRDs)', () => {
    const obj: KObject = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', resourceVersion: '9' }, spec: { size: 3 } };
    const bytes = protobufCodec().encode(obj);
    expect(Buffer.from(bytes).toString('utf8')).toBe('{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":"w"},"spec":{"size":3}}\n');
    expect(protobufCodec().decode(bytes)).toEqual({ kind: 'Widget', apiVersion: 'example.com/v1', metadata: { name: 'w' }, spec: { size: 3 } });
  });
});

describe('either codec reads either format', () => {
  const cases = [
    { name: 'protobuf codec reads JSON', writer: jsonCodec(), reader: protobufCodec() },
    { name: 'JSON codec reads protobuf', writer: protobufCodec(), reader: jsonCodec() },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const got = c.reader.decode(c.writer.encode(deployment));
      expect(got).toEqual(decodeStored(protobufCodec().encode(deployment)));
    });
  }

  test('errors: no apiVersion/kind on encode, unregistered kind in a protobuf value', () => {
    expect(() => protobufCodec().encode({ metadata: { name: 'x' } })).toThrow('codec: object has no apiVersion/kind');
    const foreign = Uint8Array.from(Buffer.from('6b3873000a0d0a0576316265741204466f6f6f12001a002200', 'hex'));
    expect(() => decodeStored(foreign)).toThrow('no kind "Fooo" is registered for version "v1bet"');
  });
});
