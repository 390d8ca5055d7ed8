// A set of field paths, as sigs.k8s.io/structured-merge-diff's fieldpath.Set
// holds it, and its FieldsV1 wire form (metadata.managedFields[].fieldsV1).
//
// A path is a list of path elements, each written as FieldsV1 writes it:
//   f:<name>            a struct field or map key      f:spec, f:app
//   k:<json object>     a list item, by its map keys   k:{"containerPort":80,"protocol":"TCP"}
//   v:<json value>      a set item, by its value       v:"foregroundDeletion"
//   i:<index>           a list item, by position (rare: atomic lists are leaves)
//
// The set is a tree: a node is a *member* when the path to it is in the set,
// and it has *children* when longer paths run through it. FieldsV1 writes a
// member without children as `{}`, and a member with children by adding the
// key "." to the children's object:
//   {"f:metadata":{"f:labels":{".":{},"f:app":{}}}}
//   = { .metadata.labels (member), .metadata.labels.app (member) }
//
// Elements are kept in SMD's order (fields, then keys, then values, then
// indices; each by its value), so encoding is byte-for-byte what kube writes.

import { isObject, type JsonValue } from './jsonValue';

export type PathElement = string;
export type FieldPath = PathElement[];

export class FieldSet {
  private readonly children = new Map<PathElement, FieldSet>();
  /** Whether the path ending at this node is itself in the set. */
  member = false;

  static fromPaths(paths: FieldPath[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  /** Decodes FieldsV1 JSON (an object) into a set. Throws on a malformed value. */
  static fromFieldsV1(v: unknown): FieldSet {
    const s = new FieldSet();
    decodeInto(s, v, true);
    return s;
  }

  insert(path: FieldPath): void {
    let node: FieldSet = this;
    for (const pe of path) node = node.child(pe, true)!;
    if (path.length > 0) node.member = true;
  }

  has(path: FieldPath): boolean {
    const node = this.node(path);
    return node !== undefined && node.member && path.length > 0;
  }

  /** The node at `path` (members and pass-through nodes). */
  node(path: FieldPath): FieldSet | undefined {
    let node: FieldSet | undefined = this;
    for (const pe of path) {
      node = node.children.get(pe);
      if (!node) return undefined;
    }
    return node;
  }

  /** Whether any member path starts with `path` (the path itself included). */
  hasPrefix(path: FieldPath): boolean {
    const node = this.node(path);
    return node !== undefined && !node.isEmpty();
  }

  isEmpty(): boolean {
    if (this.member) return false;
    for (const c of this.children.values()) if (!c.isEmpty()) return false;
    return true;
  }

  /** Every member path, in SMD's iteration order (members of a node before its children's). */
  paths(): FieldPath[] {
    const out: FieldPath[] = [];
    const walk = (node: FieldSet, prefix: FieldPath) => {
      const keys = sortedElements([...node.children.keys()]);
      for (const k of keys) if (node.children.get(k)!.member) out.push([...prefix, k]);
      for (const k of keys) {
        const c = node.children.get(k)!;
        if (c.children.size > 0) walk(c, [...prefix, k]);
      }
    };
    walk(this, []);
    return out;
  }

  union(other: FieldSet): FieldSet {
    return FieldSet.fromPaths([...this.paths(), ...other.paths()]);
  }

  /** Paths of this set that are not in `other` (exact paths, as Set.Difference). */
  difference(other: FieldSet): FieldSet {
    return FieldSet.fromPaths(this.paths().filter((p) => !other.has(p)));
  }

  intersection(other: FieldSet): FieldSet {
    return FieldSet.fromPaths(this.paths().filter((p) => other.has(p)));
  }

  /** Paths of this set not equal to, nor under, any path of `other` (Set.RecursiveDifference). */
  recursiveDifference(other: FieldSet): FieldSet {
    return FieldSet.fromPaths(this.paths().filter((p) => !p.some((_, i) => other.has(p.slice(0, i + 1)))));
  }

  /** Adds every path's struct-field ancestors as members (EnsureNamedFieldsAreMembers, for f: elements). */
  withFieldAncestors(): FieldSet {
    const out: FieldPath[] = [];
    for (const p of this.paths()) {
      out.push(p);
      for (let i = 1; i < p.length; i++) if (p[i - 1].startsWith('f:')) out.push(p.slice(0, i));
    }
    return FieldSet.fromPaths(out);
  }

  /** FieldsV1 JSON: `{"f:spec":{"f:replicas":{}}}`. */
  toFieldsV1(): Record<string, unknown> {
    return encodeNode(this, false);
  }

  private child(pe: PathElement, create: boolean): FieldSet | undefined {
    let c = this.children.get(pe);
    if (!c && create) {
      c = new FieldSet();
      this.children.set(pe, c);
    }
    return c;
  }
}

function encodeNode(node: FieldSet, includeSelf: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const kids = (node as unknown as { children: Map<string, FieldSet> }).children;
  const live = [...kids.entries()].filter(([, c]) => !c.isEmpty());
  if (includeSelf && node.member && live.length > 0) out['.'] = {};
  for (const k of sortedElements(live.map(([k]) => k))) {
    const c = kids.get(k)!;
    out[k] = encodeNode(c, true);
  }
  return out;
}

function decodeInto(node: FieldSet, v: unknown, root: boolean): void {
  if (!isObject(v)) throw new Error(`FieldsV1: expected an object, got ${JSON.stringify(v)}`);
  for (const [k, sub] of Object.entries(v)) {
    if (k === '.') {
      if (root) throw new Error('FieldsV1: "." at the root');
      node.member = true;
      continue;
    }
    parseElement(k); // validates
    node.insert([k]);
    const c = node.node([k])!;
    if (isObject(sub) && Object.keys(sub).length > 0) {
      c.member = Object.prototype.hasOwnProperty.call(sub, '.');
      decodeInto(c, sub, false);
    }
  }
}

// ---- path elements ---------------------------------------------------------

export type ParsedElement = { field: string } | { key: Record<string, JsonValue> } | { value: JsonValue } | { index: number };

export function fieldElement(name: string): PathElement {
  return `f:${name}`;
}

/** `k:{...}` with the key fields sorted by name, as SMD sorts a key's FieldList. */
export function keyElement(key: Record<string, JsonValue>): PathElement {
  const sorted: Record<string, JsonValue> = {};
  for (const k of Object.keys(key).sort()) sorted[k] = key[k];
  return `k:${JSON.stringify(sorted)}`;
}

export function valueElement(v: JsonValue): PathElement {
  return `v:${JSON.stringify(v)}`;
}

export function indexElement(i: number): PathElement {
  return `i:${i}`;
}

export function parseElement(pe: PathElement): ParsedElement {
  const tag = pe.slice(0, 2);
  const rest = pe.slice(2);
  switch (tag) {
    case 'f:':
      return { field: rest };
    case 'k:': {
      const v = JSON.parse(rest) as unknown;
      if (!isObject(v)) throw new Error(`FieldsV1: bad key element ${pe}`);
      return { key: v };
    }
    case 'v:':
      return { value: JSON.parse(rest) as JsonValue };
    case 'i:': {
      if (!/^\d+$/.test(rest)) throw new Error(`FieldsV1: bad index element ${pe}`);
      return { index: Number(rest) };
    }
    default:
      throw new Error(`FieldsV1: unknown path element ${pe}`);
  }
}

/** SMD's Path.String(): `.spec.template.spec.containers[name="nginx"].image`. */
export function pathString(path: FieldPath): string {
  return path
    .map((pe) => {
      const p = parseElement(pe);
      if ('field' in p) return `.${p.field}`;
      if ('key' in p) return `[${Object.keys(p.key).map((k) => `${k}=${JSON.stringify(p.key[k])}`).join(',')}]`;
      if ('value' in p) return `[=${JSON.stringify(p.value)}]`;
      return `[${p.index}]`;
    })
    .join('');
}

const RANK: Record<string, number> = { 'f:': 0, 'k:': 1, 'v:': 2, 'i:': 3 };

/** Sorts elements as SMD's PathElement.Compare does. */
export function sortedElements(pes: PathElement[]): PathElement[] {
  return [...pes].sort(compareElements);
}

function compareElements(a: PathElement, b: PathElement): number {
  const ra = RANK[a.slice(0, 2)] ?? 9;
  const rb = RANK[b.slice(0, 2)] ?? 9;
  if (ra !== rb) return ra - rb;
  const pa = parseElement(a);
  const pb = parseElement(b);
  if ('field' in pa && 'field' in pb) return byteCompare(pa.field, pb.field);
  if ('index' in pa && 'index' in pb) return pa.index - pb.index;
  if ('value' in pa && 'value' in pb) return compareValues(pa.value, pb.value);
  if ('key' in pa && 'key' in pb) {
    const ka = Object.keys(pa.key);
    const kb = Object.keys(pb.key);
    for (let i = 0; i < Math.min(ka.length, kb.length); i++) {
      const c = byteCompare(ka[i], kb[i]) || compareValues(pa.key[ka[i]], pb.key[kb[i]]);
      if (c !== 0) return c;
    }
    return ka.length - kb.length;
  }
  return 0;
}

function byteCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** value.Compare order: null, then booleans, numbers, strings (then anything else by its JSON). */
function compareValues(a: JsonValue, b: JsonValue): number {
  const rank = (v: JsonValue) => (v === null ? 0 : typeof v === 'boolean' ? 1 : typeof v === 'number' ? 2 : typeof v === 'string' ? 3 : 4);
  const d = rank(a) - rank(b);
  if (d !== 0) return d;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  return byteCompare(JSON.stringify(a), JSON.stringify(b));
}
