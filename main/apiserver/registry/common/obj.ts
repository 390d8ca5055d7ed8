// Small typed accessors for the loosely typed JSON objects strategies work
// on: kube's Go types are structs, ours are records, so these keep the
// defaulting and validation code readable.

export type Rec = Record<string, unknown>;

export const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The record at obj[key], created empty when missing. */
export function rec(obj: Rec, key: string): Rec {
  const v = obj[key];
  if (isRec(v)) return v;
  const fresh: Rec = {};
  obj[key] = fresh;
  return fresh;
}

/** The record at obj[key] or undefined (never creates). */
export const recOpt = (obj: Rec | undefined, key: string): Rec | undefined => (obj && isRec(obj[key]) ? (obj[key] as Rec) : undefined);

export const arr = (obj: Rec | undefined, key: string): Rec[] => (obj && Array.isArray(obj[key]) ? (obj[key] as unknown[]).filter(isRec) : []);

export const str = (obj: Rec | undefined, key: string): string => (obj && typeof obj[key] === 'string' ? (obj[key] as string) : '');

export const num = (obj: Rec | undefined, key: string): number | undefined => (obj && typeof obj[key] === 'number' ? (obj[key] as number) : undefined);

export function setDefault(obj: Rec, key: string, value: unknown): void {
  if (obj[key] === undefined || obj[key] === null || obj[key] === '') obj[key] = value;
}

export { clone } from '../../patch/jsonValue';

/** metav1.Time as kube serialises it: RFC 3339, whole seconds, UTC. */
export const rfc3339 = (d: Date): string => `${d.toISOString().slice(0, 19)}Z`;

/** metav1.MicroTime: RFC 3339 with microseconds. */
export const rfc3339Micro = (d: Date): string => `${d.toISOString().slice(0, 23)}000Z`;
