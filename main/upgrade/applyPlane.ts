// The plane an upgrade changes, as the upgrade sees it: a PlaneControl to
// replace components (planeControl.ts), and the ways to ask each kind of
// component whether it is back — the members over the etcd API (DIR/etcdctl.env
// names their URLs and the client certificate), the API server and the
// controllers' work over the Kubernetes API (DIR/kubeconfig) — and where each
// component logs. The same for a plane `pilothouse up` hosts and for one in
// this process.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataDirAccess, readEtcdctlEnv, type BackupCluster } from '../backup/clusterAccess';
import type { MemberClient } from '../client/etcd/memberClient';
import type { RestClient } from '../client/kube/restClient';
import type { ChannelTls } from '../client/etcd/etcdChannel';
import type { ControlledPlane } from '../controlplane/controlSocket';
import { kubeconfigClient } from '../controlplane/readiness';
import { socketControl, supervisorControl, type PlaneControl } from './planeControl';

export interface ApplyPlane {
  dataDir: string;
  control: PlaneControl;
  /** Member names in layout order (m1, m2, ...) and their client URLs. */
  members: { name: string; url: string }[];
  memberClient(name: string): MemberClient;
  /** The etcdctl client certificate (for the availability probe's etcd writes). */
  etcdTls(): ChannelTls | undefined;
  kubeconfig: string;
  rest(): RestClient;
  logFile(id: string): string;
  close(): void;
}

function planeOver(dataDir: string, control: PlaneControl): ApplyPlane {
  const access = dataDirAccess(dataDir);
  let cluster: BackupCluster | undefined;
  let rest: RestClient | undefined;
  const kubeconfig = join(dataDir, 'kubeconfig');
  return {
    dataDir,
    control,
    members: access.address.members,
    memberClient(name) {
      cluster ??= access.connect();
      const m = cluster.members.find((x) => x.name === name);
      if (!m) throw new Error(`no member ${name}`);
      return m.client;
    },
    etcdTls() {
      const env = readEtcdctlEnv(dataDir);
      if (!env.ETCDCTL_CERT || !env.ETCDCTL_KEY) return undefined;
      return { cert: readFileSync(env.ETCDCTL_CERT), key: readFileSync(env.ETCDCTL_KEY), ...(env.ETCDCTL_CACERT && { ca: readFileSync(env.ETCDCTL_CACERT) }) };
    },
    kubeconfig,
    rest: () => (rest ??= kubeconfigClient(kubeconfig, 'pilothouse-upgrade')),
    logFile: (id) => join(dataDir, 'logs', `${id}.log`),
    close() {
      cluster?.close();
      rest?.close();
      cluster = undefined;
      rest = undefined;
    },
  };
}

/** The plane `pilothouse up` hosts under dataDir, through its control socket. */
export function hostedPlane(dataDir: string): ApplyPlane {
  return planeOver(dataDir, socketControl(dataDir));
}

/** A plane whose orchestrator runs in this process (the console's, a rehearsal's). */
export function inProcessPlane(dataDir: string, sup: ControlledPlane): ApplyPlane {
  return planeOver(dataDir, supervisorControl(sup));
}
