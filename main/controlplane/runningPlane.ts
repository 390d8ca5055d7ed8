// What the waits (waits.ts) and the rolling restart (rollingRestart.ts) need
// of a running control plane: its members and their clients, its processes,
// where the API server listens and a poll that ends when the plane is
// disposed. The orchestrator (supervisor.ts) is one; the waits take this
// instead of the orchestrator so neither imports it back.

import type { MemberClient } from '../client/etcd/memberClient';
import type { ApiServerLayout } from './apiserverLayout';
import type { MemberLayout } from './localCluster';
import type { SupervisedProcess } from './supervisedProcess';

export interface RunningPlane {
  readonly layout: readonly MemberLayout[];
  client(name: string): MemberClient;
  /** Any component by id (a member's name, 'apiserver', 'controllers'); throws for an unknown id. */
  process(id: string): SupervisedProcess;
  readonly apiserver: SupervisedProcess | undefined;
  readonly controllers: SupervisedProcess | undefined;
  readonly apiLayout: ApiServerLayout | undefined;
  readonly controllersLayout: { logFile: string };
  /** Simulated nodes the controllers run (the usable check waits for them Ready). */
  readonly nodes: number;
  /** Polls probe until it answers (not undefined), the deadline passes or the plane is disposed. */
  pollUntil<T>(deadline: number, probe: () => Promise<T | undefined>, everyMs?: number): Promise<T | undefined>;
}
