// The member's database size as etcd reports it (Status dbSize /
// dbSizeInUse, the quota check, Defragment), for an in-memory store.
//
// etcd's bbolt file only grows: compaction frees pages inside it (dbSizeInUse
// drops) but the file keeps its size (dbSize) until a defragment rewrites it.
// Here "in use" is the bytes of every retained revision (MvccStore sizes()
// dbSize, which compaction lowers) and "allocated" is its high-water mark,
// raised whenever a larger in-use size is seen (after each apply batch and
// on every timer tick) and lowered to the in-use size only by defragment().
// Local to the member, like etcd's file: members may differ.

export interface DbSizes {
  dbSize: number;
  dbSizeInUse: number;
}

export class DbSpace {
  private allocated = 0;

  /** `inUse` reads the store's current retained bytes (the store object may be replaced by a snapshot). */
  constructor(private readonly inUse: () => number) {}

  sizes(): DbSizes {
    const inUse = this.inUse();
    if (inUse > this.allocated) this.allocated = inUse;
    return { dbSize: this.allocated, dbSizeInUse: inUse };
  }

  /** etcd's defrag: the file shrinks to what is in use. */
  defragment(): DbSizes {
    this.allocated = this.inUse();
    return this.sizes();
  }
}
