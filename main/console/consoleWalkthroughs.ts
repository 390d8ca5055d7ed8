// The walkthroughs the console offers, built from the definitions in
// main/backup with the console's own members (the same definitions the CLI
// runs headless). Each gets what its start card says and how a request from
// the renderer becomes the run's parameters.

import { join } from 'node:path';
import { backupWalkthrough, type BackupParams } from '../backup/backupWalkthrough';
import type { BackupCluster, ClusterAddress } from '../backup/clusterAccess';
import type { ConsoleCluster } from './cluster';
import { snapshotFileName } from './snapshots';
import type { ConsoleWalkthrough } from './walkthroughs';

export interface ConsoleWalkthroughDeps {
  dataDir: string;
  /** DIR/snapshots */
  snapshotsDir: string;
  cluster: ConsoleCluster;
}

/** The console's members as the backup code reaches them: its own clients, which the console keeps open. */
function consoleMembers(cluster: ConsoleCluster): { address: ClusterAddress; connect(): BackupCluster } {
  const address = (): ClusterAddress => {
    let tlsFlags = '';
    try {
      const t = cluster.etcdTlsFiles();
      tlsFlags = `--cacert=${t.caFile} --cert=${t.certFile} --key=${t.keyFile}`;
    } catch {
      // no PKI yet (the cluster is still starting): the commands show plain endpoints
    }
    return { members: cluster.members.map((m) => ({ name: m.name, url: m.clientUrl })), tlsFlags };
  };
  return {
    get address() {
      return address();
    },
    connect: () => ({ members: cluster.members.map((m) => ({ name: m.name, url: m.clientUrl, client: cluster.memberClient(m.name) })), close: () => {} }),
  };
}

export function consoleWalkthroughs(deps: ConsoleWalkthroughDeps): ConsoleWalkthrough[] {
  const members = consoleMembers(deps.cluster);
  return [
    {
      definition: backupWalkthrough(members),
      description: 'Preflight the members, stream a snapshot from the leader, verify it (hash, revision, keys per resource) and store it with its metadata under DIR/snapshots.',
      needsSnapshot: false,
      params: (): BackupParams => ({ file: join(deps.snapshotsDir, snapshotFileName(new Date())), source: 'save', dataDir: deps.dataDir }),
    },
  ];
}
