// The contract's runtime lists of call and stream names come from here so
// that the compiler keeps them equal to the type map: the names arrive as an
// object literal typed Record<keyof T, true>, so a key of T that is left out
// is a missing property and a name T lacks is an excess one — both type
// errors — and a name cannot appear twice.

/** The keys of T, in the order written, as a list the compiler holds to exactly T's keys. */
export function keysOf<T>(keys: Record<keyof T, true>): (keyof T)[] {
  return Object.keys(keys) as (keyof T)[];
}
