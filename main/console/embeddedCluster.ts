// The cluster the console runs itself: every member, the API server and the
// controllers are the orchestrator's processes (controlplane/supervisor.ts),
// so every action is possible. This is the only console module that knows
// the orchestrator's fields; the services see a ConsoleCluster.

import { existsSync, readFileSync } from 'node:fs';
import type { ComponentStatus, ProcessState, StartupStep } from '../../preload/contract';
import type { MemberClient } from '../client/etcd/memberClient';
import type { ClientPem } from '../common/tlsChannel';
import type { Program } from '../controlplane/program';
import type { Supervisor } from '../controlplane/supervisor';
import type { ClusterCapabilities, ConsoleCluster, ControlledProcess, RestorableMember, TlsFiles } from './cluster';
import { parseEnvFile } from '../controlplane/envFile';

export class EmbeddedCluster implements ConsoleCluster {
  readonly mode = 'embedded' as const;
  readonly capabilities: ClusterCapabilities = { processControl: true, snapshotRestore: true };
  readonly writable = true;

  constructor(private readonly sup: Supervisor) {}

  get members(): readonly RestorableMember[] {
    return this.sup.layout;
  }

  get restorable(): readonly RestorableMember[] {
    return this.sup.layout;
  }

  memberClient(name: string): MemberClient {
    return this.sup.client(name);
  }

  /** The API server's process exists once the first start has made its PKI. */
  get hasApiServer(): boolean {
    return this.sup.apiserver !== undefined;
  }

  get apiServerUrl(): string | undefined {
    return this.sup.apiLayout?.url;
  }

  get kubeconfigPath(): string | undefined {
    return this.sup.apiLayout?.kubeconfig;
  }

  etcdTlsFiles(): TlsFiles {
    return this.sup.tlsFiles();
  }

  etcdTlsFilesIfAny(): TlsFiles | undefined {
    return this.sup.tlsFiles();
  }

  kubeconfigEnv(): string | undefined {
    const kc = this.kubeconfigPath;
    return kc && existsSync(kc) ? kc : undefined;
  }

  etcdTlsPem(): ClientPem {
    return this.sup.tlsPem();
  }

  apiServerTlsFiles(): TlsFiles | undefined {
    const pki = this.sup.apiLayout?.pki;
    return pki && { caFile: pki.ca.cert, certFile: pki.admin.cert, keyFile: pki.admin.key };
  }

  etcdctlEnv(): Record<string, string> {
    return existsSync(this.sup.envFile) ? parseEnvFile(readFileSync(this.sup.envFile, 'utf8')) : {};
  }

  components(): ComponentStatus[] {
    return this.sup.components();
  }

  hasComponent(id: string): boolean {
    return this.sup.has(id);
  }

  processState(name: string): ProcessState | undefined {
    return this.sup.has(name) ? this.sup.process(name).state : undefined;
  }

  markHealthy(name: string): void {
    this.sup.process(name).markReady();
  }

  checkReadiness(): Promise<boolean | undefined> {
    this.sup.controllersReady(); // a restarted controllers process counts as running again
    return this.sup.apiserverReady();
  }

  start(timeoutMs: number): Promise<boolean> {
    return this.sup.start(timeoutMs);
  }

  startupSteps(): StartupStep[] {
    return this.sup.startupSteps();
  }

  get coldStartMs(): number | undefined {
    return this.sup.coldStartMs;
  }

  dispose(): Promise<void> {
    return this.sup.dispose();
  }

  process(id: string): ControlledProcess | undefined {
    return this.sup.has(id) ? this.sup.process(id) : undefined;
  }

  commandLine(id: string): { program: Program; args: string[] } | undefined {
    return this.sup.has(id) ? this.sup.commandLine(id) : undefined;
  }

  /** The controllers, then the API server (its watch cache holds the old revisions), then the members. */
  stopAll(): Promise<void> {
    return this.sup.stopAll();
  }

  startAll(): void {
    this.sup.startAll();
  }
}
