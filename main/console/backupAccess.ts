// The backup walkthrough's view of the console's cluster: the members and
// the clients the console already holds (so a run opens no connections of
// its own and closes none of the console's), and the TLS files etcdctl would
// take for the commands the steps show.

import type { BackupWalkthroughEnv } from '../backup/backupWalkthrough';
import type { ConsoleCluster } from './cluster';

export function consoleBackupEnv(cluster: ConsoleCluster): BackupWalkthroughEnv {
  const tls = cluster.members.some((m) => m.clientUrl.startsWith('https:')) ? cluster.etcdTlsFiles() : undefined;
  return {
    address: {
      members: cluster.members.map((m) => ({ name: m.name, url: m.clientUrl })),
      tlsFlags: tls ? `--cacert=${tls.caFile} --cert=${tls.certFile} --key=${tls.keyFile}` : '',
    },
    connect: () => ({
      members: cluster.members.map((m) => ({ name: m.name, url: m.clientUrl, client: cluster.memberClient(m.name) })),
      close: () => undefined,
    }),
  };
}
