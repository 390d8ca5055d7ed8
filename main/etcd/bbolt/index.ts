// A bbolt v1.3.6 database file (etcd's backend format): read it, check it as
// tx.Check() does, and write a compact one from sorted bucket contents.
export { BoltBucket, BoltDb, type BoltEntry } from './reader';
export { BoltPlan, planBolt, writeBolt, type BucketSpec, type EntrySource, type RootSpec } from './writer';
export { PAGE_SIZE } from './page';
