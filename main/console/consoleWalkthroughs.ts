// The walkthroughs the console offers, built from the definitions in
// main/backup with the console's own members (the same definitions the CLI
// runs headless). Each gets what its start card says and how a request from
// the renderer becomes the run's parameters.

import { join } from 'node:path';
import { backupWalkthrough, type BackupParams } from '../backup/backupWalkthrough';
import type { BackupCluster, ClusterAddress } from '../backup/clusterAccess';
import { drillWalkthrough, type DrillParams } from '../backup/drillWalkthrough';
import type { RecoveryPlane } from '../backup/recovery';
import { restoreWalkthrough, type RecoveryCommands, type RestoreParams } from '../backup/restoreWalkthrough';
import { blockFree } from '../backup/drillPorts';
import type { ControlledPlane } from '../controlplane/controlSocket';
import { inProcessPlane } from '../upgrade/applyPlane';
import { currentLeader } from '../upgrade/leadership';
import { upgradeWalkthrough, type UpgradeParams } from '../upgrade/upgradeWalkthrough';
import { shellQuote } from './memberActions';
import { checkUpgradeRequest } from './upgradeRequest';
import type { ConsoleCluster } from './cluster';
import { snapshotFileName } from './snapshots';
import type { ConsoleWalkthrough } from './walkthroughs';

export interface ConsoleWalkthroughDeps {
  dataDir: string;
  /** DIR/snapshots */
  snapshotsDir: string;
  cluster: ConsoleCluster;
  /** The `pilothouse` script the drill's scratch members run. */
  cliPath: string;
  /** The orchestrator of the console's plane, which the upgrade replaces components through; none for an attached cluster. */
  supervisor?: ControlledPlane;
  /** The plane's first port; an upgrade rehearsal's copy listens from REHEARSAL_PORT_OFFSET above it when those ports are free. */
  portBase: number;
}

/** Past the plane's own ports (three members' client and peer ports, the API server). */
export const REHEARSAL_PORT_OFFSET = 10;
const SCRATCH_PORTS = 7;

/** The upgrade's start: the form checked, and the components in the order they will be replaced (the leader last). */
async function upgradeParams(deps: ConsoleWalkthroughDeps & { supervisor: ControlledPlane }, form: unknown): Promise<UpgradeParams> {
  const req = checkUpgradeRequest(form);
  const plane = inProcessPlane(deps.dataDir, deps.supervisor);
  let leader: string | undefined;
  try {
    leader = await currentLeader(plane);
  } finally {
    plane.close();
  }
  const ids = deps.supervisor.components().map((c) => c.id);
  const members = deps.cluster.members.map((m) => m.name).filter((m) => ids.includes(m));
  const order = [...members.filter((m) => m !== leader), ...members.filter((m) => m === leader), ...['apiserver', 'controllers'].filter((id) => ids.includes(id))];
  const scratch = deps.portBase + REHEARSAL_PORT_OFFSET;
  return { dataDir: deps.dataDir, ...req, order, ...((await blockFree(scratch, SCRATCH_PORTS)) && { rehearsalPortBase: scratch }) };
}

const READY_POLL_MS = 250;

/** The console's own plane as the disaster recovery drives it: every process is the supervisor's. */
function consolePlane(cluster: ConsoleCluster): RecoveryPlane {
  return {
    layout: cluster.restorable,
    client: (name) => cluster.memberClient(name),
    stopAll: () => cluster.stopAll(),
    startAll: () => cluster.startAll(),
    async waitServing(timeoutMs) {
      if (!cluster.hasApiServer) return;
      const deadline = Date.now() + timeoutMs;
      while (!(await cluster.checkReadiness().catch(() => false))) {
        if (Date.now() > deadline) throw new Error(`the API server did not become ready within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, READY_POLL_MS));
      }
    },
  };
}

/**
 * The console stops and starts the processes it supervises itself (it keeps
 * running; there is no controlplane.pid to signal): the stop step shows the
 * SIGTERMs its supervisor sends, in its order — controllers, API server,
 * then the members — and the start step the members' own command lines.
 */
export function consoleRecoveryCommands(cluster: ConsoleCluster, p: RestoreParams): RecoveryCommands {
  const pidOf = new Map(cluster.components().map((c) => [c.id, c.pid]));
  const order = ['controllers', 'apiserver', ...cluster.members.map((m) => m.name)].filter((id) => pidOf.has(id));
  const stop = `kill -TERM ${order.map((id) => pidOf.get(id) ?? `<${id} pid>`).join(' ')}   # ${order.join(', ')}: the console's supervised processes, stopped in turn; the console keeps running`;
  const first = cluster.members[0]?.name;
  const line = first === undefined ? undefined : cluster.commandLine(first);
  const start = line
    ? `${[line.program.command, ...line.program.args, ...line.args].map(shellQuote).join(' ')}   # and ${cluster.members.slice(1).map((m) => m.name).join(', ') || 'no other member'}, started again by the console from ${p.dataDir}`
    : `the console starts its members again from ${p.dataDir}`;
  return { stop, start };
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
    {
      definition: drillWalkthrough({ cliPath: deps.cliPath }),
      description: 'Prove a snapshot restores, without touching the live cluster: restore it into a scratch cluster on free ports, serve it through a scratch API server, compare counts, measure RTO and RPO, tear it down.',
      needsSnapshot: true,
      params: (r): DrillParams => ({ file: r.snapshotPath!, dataDir: deps.dataDir }),
    },
    ...(deps.cluster.capabilities.snapshotRestore
      ? [{
          definition: restoreWalkthrough({ plane: () => consolePlane(deps.cluster), commands: (p) => consoleRecoveryCommands(deps.cluster, p) }),
          description: "Disaster recovery: stop the controllers, the API server and the members, restore every member as a new cluster with revisions bumped past the live ones, start them again. Asks before the stop.",
          needsSnapshot: true,
          params: (r: { snapshotPath?: string }): RestoreParams => ({ file: r.snapshotPath!, dataDir: deps.dataDir }),
        }]
      : []),
    ...upgradeEntry(deps, members),
  ];
}

/** The upgrade, for a plane the console runs (its supervisor replaces the components). */
function upgradeEntry(deps: ConsoleWalkthroughDeps, members: ReturnType<typeof consoleMembers>): ConsoleWalkthrough[] {
  const sup = deps.supervisor;
  if (!sup || !deps.cluster.capabilities.processControl) return [];
  return [
    {
      definition: upgradeWalkthrough({ plane: () => inProcessPlane(deps.dataDir, sup), backup: members, cliPath: deps.cliPath }),
      description: 'Plan a new build or flag settings, back up, rehearse on a copy, then replace the members (the leader last), the API server and the controllers one at a time, each waited for and rolled back if not back; availability measured.',
      needsSnapshot: false,
      form: 'upgrade' as const,
      params: (r: { upgrade?: unknown }) => upgradeParams({ ...deps, supervisor: sup }, r.upgrade),
    },
  ];
}
