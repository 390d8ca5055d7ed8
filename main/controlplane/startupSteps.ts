// The first-start checklist the console shows while the control plane comes
// up (PKI, members, leader, quorum, API server): each step pending → running →
// done/failed with its elapsed time, pushed as a whole list on every change
// (the list is short; the renderer just replaces it). onStep hears each
// changed step alone (`pilothouse up` prints its lines from them).

import type { EventSink, StartupStep } from '../../preload/contract';

const STARTUP_STEPS = [
  { id: 'pki', label: 'Certificates (CA, member, client)' },
  { id: 'members', label: 'Starting etcd members' },
  { id: 'leader', label: 'Leader elected' },
  { id: 'quorum', label: 'Every member serves linearizable reads' },
];
const APISERVER_STEP = { id: 'apiserver', label: 'API server ready (/readyz)' };
const CONTROLLERS_STEP = { id: 'controllers', label: 'Controllers hold their leases, roles aggregated, nodes Ready' };

/** The steps of a plane with or without an API server and controllers. */
export function planeSteps(runs: { apiserver: boolean; controllers: boolean }): { id: string; label: string }[] {
  return [...STARTUP_STEPS, ...(runs.apiserver ? [APISERVER_STEP] : []), ...(runs.apiserver && runs.controllers ? [CONTROLLERS_STEP] : [])];
}

export class StartupSteps {
  private readonly steps: StartupStep[];
  private readonly began = new Map<string, number>();

  constructor(
    defs: { id: string; label: string }[],
    private readonly events: EventSink | undefined,
    private readonly now: () => number = () => Date.now(),
    private readonly onStep?: (step: StartupStep) => void,
  ) {
    this.steps = defs.map((d) => ({ id: d.id, label: d.label, state: 'pending' }));
  }

  list(): StartupStep[] {
    return this.steps.map((s) => ({ ...s }));
  }

  private step(id: string): StartupStep {
    const s = this.steps.find((x) => x.id === id);
    if (!s) throw new Error(`no startup step ${id}`);
    return s;
  }

  begin(id: string, detail?: string): void {
    const s = this.step(id);
    this.began.set(id, this.now());
    s.state = 'running';
    if (detail !== undefined) s.detail = detail;
    this.emit(s);
  }

  done(id: string, detail?: string): void {
    this.finish(id, 'done', detail);
  }

  fail(id: string, detail: string): void {
    this.finish(id, 'failed', detail);
  }

  private finish(id: string, state: 'done' | 'failed', detail?: string): void {
    const s = this.step(id);
    s.state = state;
    s.elapsedMs = this.now() - (this.began.get(id) ?? this.now());
    if (detail !== undefined) s.detail = detail;
    this.emit(s);
  }

  /** Every step done (failed or pending ones make this false). */
  get complete(): boolean {
    return this.steps.every((s) => s.state === 'done');
  }

  private emit(changed: StartupStep): void {
    this.onStep?.({ ...changed });
    this.events?.emit('startupProgress', this.list());
  }
}
