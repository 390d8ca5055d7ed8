// The etcd release a member follows: what Status reports as its version,
// /version as etcdserver, and etcd_server_version. The cluster version is
// the lowest member version's major.minor, as etcd decides it; every member
// of this build follows 3.4, so a cluster of them is at 3.4.

export const SERVER_VERSION = '3.4.23';
/** /version's etcdcluster. */
export const CLUSTER_VERSION = '3.4.0';
/** etcd_cluster_version's label: major.minor (etcd's version.Cluster). */
export const CLUSTER_VERSION_LABEL = '3.4';
