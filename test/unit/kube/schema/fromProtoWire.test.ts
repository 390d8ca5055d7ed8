// The decoder on hand-made wire bytes: what gogo's Unmarshal does with input
// our own encoder never writes (repeated scalars, split repeated fields,
// packed runs, unknown fields of every wire type, partial map entries).

import { describe, expect, test } from 'vitest';
import { fromProto } from '../../../../main/kube/schema';
import { WIRE_BYTES, WIRE_FIXED32, WIRE_FIXED64, WIRE_VARINT, WireWriter } from '../../../../main/common/protobufWire';

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const PSC = 'k8s.io.api.core.v1.PodSecurityContext';

function entry(key?: string, value?: string): Uint8Array {
  const w = new WireWriter();
  if (key !== undefined) w.tag(1, WIRE_BYTES).string(key);
  if (value !== undefined) w.tag(2, WIRE_BYTES).string(value);
  return w.finish();
}

describe('fromProto on hand-made wire bytes', () => {
  test('last occurrence of a scalar wins; repeated fields gather every occurrence; unknown fields of each wire type are skipped', () => {
    const w = new WireWriter();
    w.tag(1, WIRE_BYTES).string('first');
    w.tag(14, WIRE_BYTES).string('a');
    w.tag(99, WIRE_VARINT).varint(300);
    w.tag(98, WIRE_FIXED64).raw(new Uint8Array(8));
    w.tag(97, WIRE_FIXED32).raw(new Uint8Array(4));
    w.tag(96, WIRE_BYTES).string('ignored');
    w.tag(1, WIRE_BYTES).string('nginx-ü');
    w.tag(7, WIRE_VARINT).varint(3);
    w.tag(14, WIRE_BYTES).string('b');
    expect(fromProto(META, w.finish())).toEqual({ name: 'nginx-ü', generation: 3, creationTimestamp: null, finalizers: ['a', 'b'] });
  });

  test('map entries: a missing value is the zero value, a missing key the empty key, a repeated key the last entry', () => {
    const w = new WireWriter();
    w.tag(11, WIRE_BYTES).bytes(entry('app', 'web'));
    w.tag(11, WIRE_BYTES).bytes(entry('empty'));
    w.tag(11, WIRE_BYTES).bytes(entry(undefined, 'nokey'));
    w.tag(11, WIRE_BYTES).bytes(entry('app', 'api'));
    expect(fromProto(META, w.finish()).labels).toEqual({ app: 'api', empty: '', '': 'nokey' });
  });

  test('repeated int64: one per field or packed in a run; negative values as two’s complement', () => {
    const packed = new WireWriter().varint(5).varint(-7n).finish();
    const w = new WireWriter();
    w.tag(4, WIRE_VARINT).varint(1000);
    w.tag(4, WIRE_BYTES).bytes(packed);
    w.tag(2, WIRE_VARINT).varint(-1n);
    expect(fromProto(PSC, w.finish())).toEqual({ runAsUser: -1, supplementalGroups: [1000, 5, -7] });
  });

  test('a value of the wrong wire type reads as the zero value', () => {
    const w = new WireWriter();
    w.tag(1, WIRE_VARINT).varint(5);
    w.tag(7, WIRE_BYTES).string('x');
    expect(fromProto(META, w.finish())).toEqual({ creationTimestamp: null });
  });

  test('truncated input is an error, not invented values', () => {
    const whole = new WireWriter().tag(1, WIRE_BYTES).string('nginx').tag(7, WIRE_VARINT).varint(300).finish();
    for (let cut = 1; cut < whole.length; cut++) {
      if (cut === 7) continue; // right after the name field: a shorter but whole message
      expect(() => fromProto(META, whole.subarray(0, cut)), `cut at ${cut}`).toThrow(/proto:/);
    }
    expect(fromProto(META, whole.subarray(0, 7))).toEqual({ name: 'nginx', creationTimestamp: null });
  });

  test('an over-long tag keeps its low 32 bits (here wire type 7, an error); a varint past 10 bytes is an error, as gogo’s overflow check', () => {
    const name = new WireWriter().tag(1, WIRE_BYTES).string('p').finish();
    const longTag = Buffer.concat([name, Buffer.from('ffffffffffffffff01', 'hex')]);
    expect(() => fromProto(META, longTag)).toThrow('proto: unsupported wire type 7');
    const elevenBytes = Buffer.concat([name, Buffer.from('38' + 'ff'.repeat(10) + '01', 'hex')]);
    expect(() => fromProto(META, elevenBytes)).toThrow('proto: varint too long');
  });
});

