// What the console's services need from a cluster, whoever runs it: the
// members and a client for each, where the API server listens, the TLS
// material, the environment a terminal gets, the components' statuses, and
// which actions are possible at all. The embedded cluster (embeddedCluster.ts)
// runs every process itself and can do everything; a real cluster the console
// only attaches to can do none of the process actions, and a service asked
// for one answers that plainly instead of failing somewhere deeper.

import type { ClusterOverview, ComponentStatus, ProcessState, StartupStep } from '../../preload/contract';
import type { MemberClient } from '../client/etcd/memberClient';
import type { ClientPem } from '../common/tlsChannel';
import type { Program } from '../controlplane/program';

export interface ClusterMember {
  name: string;
  clientUrl: string;
}

/** A member as a restore rewrites it: its data dir and peer URL besides its name. */
export interface RestorableMember extends ClusterMember {
  dataDir: string;
  peerUrl: string;
}

/** A CA and a client certificate as files (what etcdctl, kubectl and the feeds take). */
export interface TlsFiles {
  caFile: string;
  certFile: string;
  keyFile: string;
}

export interface ClusterCapabilities {
  /** Start, stop, kill, pause, resume and restart the cluster's processes (and the kill-the-leader experiment). */
  processControl: boolean;
  /** Replace every member's data dir from a snapshot: stops and starts the members. */
  snapshotRestore: boolean;
}

/** One of the cluster's processes, as the console's actions drive it. */
export interface ControlledProcess {
  readonly pid: number | undefined;
  /** A child process exists, whatever its state. */
  readonly running: boolean;
  readonly state: ProcessState;
  start(): void;
  stop(): Promise<void>;
  kill(): Promise<void>;
  restart(): Promise<void>;
  pause(): boolean;
  resume(): boolean;
}

export interface ConsoleCluster {
  readonly mode: ClusterOverview['mode'];
  readonly capabilities: ClusterCapabilities;
  /** Actions that change the cluster are allowed (the embedded lab; an attached cluster only when its connection says so). */
  readonly writable: boolean;
  readonly members: readonly ClusterMember[];
  memberClient(name: string): MemberClient;
  /** Whether the cluster has an API server at all (its URL is known once started). */
  readonly hasApiServer: boolean;
  readonly apiServerUrl: string | undefined;
  readonly kubeconfigPath: string | undefined;
  /** The etcd CA and client certificate as files (watch feed, terminals). */
  etcdTlsFiles(): TlsFiles;
  /** The same as PEM (the member clients). */
  etcdTlsPem(): ClientPem;
  /** The API server's CA and an admin client certificate (the trace feed); undefined without an API server. */
  apiServerTlsFiles(): TlsFiles | undefined;
  /** ETCDCTL_* for a terminal, so etcdctl works with no flags; empty before the cluster has written them. */
  etcdctlEnv(): Record<string, string>;
  /** KUBECONFIG for a terminal (with the chosen context current); undefined without an API server. */
  kubeconfigEnv(): string | undefined;
  /** The etcd CA and client certificate files, or undefined for plain http members. */
  etcdTlsFilesIfAny(): TlsFiles | undefined;

  components(): ComponentStatus[];
  hasComponent(id: string): boolean;
  /** A member's process state when the console runs it; undefined otherwise. */
  processState(name: string): ProcessState | undefined;
  /** A probe saw the member serve a linearizable read. */
  markHealthy(name: string): void;
  /** One readiness round of the API server and the controllers: the API server's /readyz, undefined without one. */
  checkReadiness(): Promise<boolean | undefined>;

  /** Brings the cluster up (or connects to it); false when it did not become healthy in time. */
  start(timeoutMs: number): Promise<boolean>;
  startupSteps(): StartupStep[];
  readonly coldStartMs: number | undefined;
  dispose(): Promise<void>;

  /** With processControl: a component's process; undefined for an unknown id or without the capability. */
  process(id: string): ControlledProcess | undefined;
  /** With processControl: the program and flags a component runs with. */
  commandLine(id: string): { program: Program; args: string[] } | undefined;

  /** With snapshotRestore: the members' data dirs, and stopping and starting the whole cluster around a restore. */
  readonly restorable: readonly RestorableMember[];
  stopAll(): Promise<void>;
  startAll(): void;
}

/** The answer to an action that would change a cluster attached read-only. */
export function readOnly(what: string): string {
  return `${what} is refused: the console is attached to this cluster read-only (attach it with --writable to allow changes)`;
}

/** The answer to an action the cluster cannot do. */
export function notPossible(what: string, cluster: Pick<ConsoleCluster, 'mode'>): string {
  return `${what} is not possible on ${cluster.mode === 'embedded' ? 'this cluster' : 'an attached cluster: its processes are not run by this console'}`;
}
