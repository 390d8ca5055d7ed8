// etcd 3.4's backend file: the member's state in etcd's bbolt buckets, written
// for the Snapshot stream and read back by the offline snapshot tools.
export * from './layout';
export { readBackend, type BackendContents } from './readBackend';
export { planBackend, writeBackend, type BackendImage } from './writeBackend';
