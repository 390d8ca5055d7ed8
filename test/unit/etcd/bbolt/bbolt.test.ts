import { describe, expect, it } from 'vitest';
import { BoltDb, PAGE_SIZE, planBolt, writeBolt, type BucketSpec } from '../../../../main/etcd/bbolt/index';
import { fnv64a } from '../../../../main/etcd/bbolt/page';

const b = (s: string) => Buffer.from(s);

/** Every entry of every bucket as [path, key, value-or-'<bucket>'], depth first. */
function dump(db: BoltDb): [string, string, string][] {
  const out: [string, string, string][] = [];
  const walk = (bucket: ReturnType<BoltDb['root']['childBucket']>, path: string) =>
    bucket.forEach((e) => {
      out.push([path, e.key.toString('latin1'), e.isBucket ? '<bucket>' : e.value.toString('latin1')]);
      if (e.isBucket) walk(bucket.childBucket(e.value), `${path}/${e.key.toString('latin1')}`);
    });
  walk(db.root, '');
  return out;
}

function sortedEntries(n: number, value: (i: number) => string): [Uint8Array, Uint8Array][] {
  return Array.from({ length: n }, (_, i) => [b(`key-${String(i).padStart(7, '0')}`), b(value(i))]);
}

describe('bbolt writer and reader', () => {
  it('FNV-1a 64 matches Go hash/fnv', () => {
    const cases = [
      { input: '', want: 0xcbf29ce484222325n },
      { input: 'a', want: 0xaf63dc4c8601ec8cn },
      { input: 'foobar', want: 0x85944171f73967e8n },
    ];
    for (const c of cases) expect(fnv64a(b(c.input)), c.input).toBe(c.want);
  });

  it('round-trips small buckets (inline) and an empty one, and passes check', () => {
    const file = writeBolt({
      entries: [
        [b('alpha'), { entries: [[b('a'), b('1')], [b('b'), b('2')]] }],
        [b('empty'), { entries: [] }],
      ],
    });
    expect(file.length % PAGE_SIZE).toBe(0);
    const db = BoltDb.open(file);
    expect(db.check()).toEqual([]);
    expect(db.size).toBe(file.length);
    expect(db.root.bucket('alpha')!.rootPgid).toBe(0); // inline
    expect(dump(db)).toEqual([
      ['', 'alpha', '<bucket>'],
      ['/alpha', 'a', '1'],
      ['/alpha', 'b', '2'],
      ['', 'empty', '<bucket>'],
    ]);
  });

  it('spreads many keys over leaf and branch pages', () => {
    const entries = sortedEntries(100_000, (i) => `value ${i}`);
    const db = BoltDb.open(writeBolt({ entries: [[b('many'), { entries }]] }));
    expect(db.check()).toEqual([]);
    const many = db.root.bucket('many')!;
    expect(many.rootPgid).toBeGreaterThan(2);
    const bad: string[] = [];
    let n = 0;
    many.forEach((e) => {
      if (e.key.toString() !== `key-${String(n).padStart(7, '0')}` || e.value.toString() !== `value ${n}`) bad.push(e.key.toString());
      n++;
    });
    expect(bad).toEqual([]);
    expect(n).toBe(100_000);
    // pages are filled: the data (16-byte element + key + value each) over the file size
    const data = entries.reduce((s, [k, v]) => s + 16 + k.length + v.length, 0);
    expect(data / db.size).toBeGreaterThan(0.85);
  });

  it('stores large values on overflow pages', () => {
    const big = (i: number) => String.fromCharCode(97 + (i % 26)).repeat(5000 + i * 1000);
    const entries = sortedEntries(40, big);
    const plan = planBolt({ entries: [[b('big'), { entries }], [b('small'), { entries: sortedEntries(3000, (i) => `s${i}`) }]] });
    const whole = plan.toBuffer();
    // streamed in chunks, nodes of up to 16 pages straddle chunk boundaries: the same bytes
    for (const chunkBytes of [PAGE_SIZE, 8 * PAGE_SIZE, 32 * 1024 * 4]) {
      const chunks = [...plan.chunks(chunkBytes)];
      expect(chunks.slice(0, -1).every((c) => c.length === chunkBytes), `${chunkBytes}`).toBe(true);
      expect(Buffer.concat(chunks).equals(whole), `${chunkBytes}`).toBe(true);
    }
    const db = BoltDb.open(whole);
    expect(db.check()).toEqual([]);
    const got: string[] = [];
    db.root.bucket('big')!.forEach((e) => got.push(e.value.toString()));
    expect(got).toEqual(entries.map(([, v]) => Buffer.from(v).toString()));
  });

  it('nests buckets, inline and not', () => {
    const inner: BucketSpec = { entries: sortedEntries(500, (i) => `in${i}`) };
    const file = writeBolt({
      entries: [
        [
          b('outer'),
          {
            entries: [
              [b('child'), inner],
              [b('plain'), b('value')],
              [b('tiny'), { entries: [[b('x'), b('y')]] }],
            ],
          },
        ],
      ],
    });
    const db = BoltDb.open(file);
    expect(db.check()).toEqual([]);
    const outer = db.root.bucket('outer')!;
    expect(outer.rootPgid).not.toBe(0); // it holds buckets, so it is never inline
    expect(outer.bucket('child')!.rootPgid).not.toBe(0);
    expect(outer.bucket('tiny')!.rootPgid).toBe(0);
    const rows = dump(db);
    expect(rows.filter((r) => r[0] === '/outer/child')).toHaveLength(500);
    expect(rows).toContainEqual(['/outer/tiny', 'x', 'y']);
    expect(rows).toContainEqual(['/outer', 'plain', 'value']);
  });

  it('refuses corrupt files with bbolt’s wording', () => {
    const file = writeBolt({ entries: [[b('many'), { entries: sortedEntries(5_000, (i) => `v${i}`) }]] });
    const cases: { name: string; corrupt: (f: Buffer) => void; want: RegExp; at: 'open' | 'check' }[] = [
      { name: 'both meta checksums', corrupt: (f) => (f[16 + 20]! ^= 1, f[PAGE_SIZE + 16 + 20]! ^= 1), want: /checksum error/, at: 'open' },
      { name: 'bad magic', corrupt: (f) => (f.writeUInt32LE(0, 16), f.writeUInt32LE(0, PAGE_SIZE + 16)), want: /invalid database/, at: 'open' },
      { name: 'a leaf page turned into a meta page', corrupt: (f) => f.writeUInt16LE(0x04, 3 * PAGE_SIZE + 8), want: /page 3: invalid type: meta/, at: 'check' },
      { name: 'a page header naming another page', corrupt: (f) => f.writeUInt32LE(9, 4 * PAGE_SIZE), want: /page 4: header says page 9/, at: 'check' },
      { name: 'truncated', corrupt: () => undefined, want: /file size too small/, at: 'open' },
    ];
    for (const c of cases) {
      let f = Buffer.from(file);
      c.corrupt(f);
      if (c.name === 'truncated') f = f.subarray(0, f.length - PAGE_SIZE);
      if (c.at === 'open') expect(() => BoltDb.open(f), c.name).toThrow(c.want);
      else expect(BoltDb.open(f).check().join('\n'), c.name).toMatch(c.want);
    }
    // the first meta alone failing is survivable: bbolt falls back to the other
    const one = Buffer.from(file);
    one[16 + 20]! ^= 1;
    expect(BoltDb.open(one).check()).toEqual([]);
  });
});
