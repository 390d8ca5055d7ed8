// Every member probed once a round (about every second), like `etcdctl
// endpoint status` + `endpoint health` against each endpoint:
//   - Maintenance.Status: leader, raft term/index/applied index, db sizes,
//     version, errors, learner flag; its round trip is the probe latency;
//   - healthy = a linearizable get of "health" succeeds (etcdctl's own test:
//     it needs a leader and a quorum, so a member cut off from the others
//     answers Status but is not healthy);
//   - alarms: an AlarmList every ALARM_EVERY_ROUNDS rounds (it goes through
//     Raft — one log entry per call — so asking every second would grow every
//     member's log by 86,400 entries a day); any member with a leader answers
//     for all, split by member id.
// Member ids are 16 hex digits, as etcdctl prints them; a member that does
// not answer keeps the id it last reported.

import type { MemberStatus } from '../../preload/contract';
import type { ClusterMember, ConsoleCluster } from './cluster';
import { ALARM_NAMES, idHex, type WireAlarm, type WireStatus } from '../client/etcd/memberClient';

/** The members and their clients; processState (when the console runs them) and markHealthy (marks the process running) are optional. */
export type ProbeTargets = Pick<ConsoleCluster, 'members' | 'memberClient'> & Partial<Pick<ConsoleCluster, 'processState' | 'markHealthy'>>;

export interface ProbeRound {
  members: MemberStatus[];
  /** Raw Status answers by member name (the leader timeline reads terms from them). */
  statuses: Map<string, WireStatus>;
  clusterId?: string;
  at: number;
}

export const PROBE_INTERVAL_MS = 1_000;
export const ALARM_EVERY_ROUNDS = 10;
/** Longer than a round: a busy machine answers late, and a late answer is not an unhealthy member. */
const PROBE_TIMEOUT_MS = 1_500;

export class MemberHealth {
  private readonly knownIds = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private last: ProbeRound | undefined;
  private running = false;
  private rounds = 0;
  private lastAlarms = new Map<string, string[]>();
  private disposed = false;

  constructor(
    private readonly targets: ProbeTargets,
    private readonly onRound: (round: ProbeRound) => void,
    private readonly intervalMs = PROBE_INTERVAL_MS,
  ) {}

  /** Starts the probe loop (the first round runs at once). */
  start(): void {
    if (this.running || this.disposed) return;
    this.running = true;
    const loop = async () => {
      if (this.disposed) return;
      const began = Date.now();
      await this.probeOnce().catch(() => undefined);
      if (!this.disposed) this.timer = setTimeout(loop, Math.max(50, this.intervalMs - (Date.now() - began)));
    };
    void loop();
  }

  latest(): ProbeRound | undefined {
    return this.last;
  }

  /** Member name → hex id (as last reported). */
  memberId(name: string): string | undefined {
    return this.knownIds.get(name);
  }

  /** Name of the member with this hex id. */
  nameOf(idHexValue: string): string | undefined {
    for (const [name, id] of this.knownIds) if (id === idHexValue) return name;
    return undefined;
  }

  async probeOnce(): Promise<ProbeRound> {
    const at = Date.now();
    const results = await Promise.all(this.targets.members.map((m) => this.probeMember(m)));
    const statuses = new Map<string, WireStatus>();
    let clusterId: string | undefined;
    for (const r of results) {
      if (r.status) {
        statuses.set(r.member.name, r.status);
        if (r.status.header) clusterId ??= idHex(r.status.header.cluster_id);
      }
    }
    const withLeader = results.filter((r) => r.status && r.status.leader !== '0').map((r) => r.member.name);
    if (this.rounds++ % ALARM_EVERY_ROUNDS === 0) this.lastAlarms = await this.alarms(withLeader, this.lastAlarms);
    const alarms = this.lastAlarms;
    const members = results.map((r) => this.toStatus(r, alarms));
    const round: ProbeRound = { members, statuses, at, ...(clusterId ? { clusterId } : {}) };
    if (!this.disposed) {
      this.last = round;
      this.onRound(round);
    }
    return round;
  }

  private async probeMember(member: ClusterMember) {
    const client = this.targets.memberClient(member.name);
    const t0 = performance.now();
    let status: WireStatus | undefined;
    let error: string | undefined;
    let latencyMs: number | undefined;
    try {
      status = await client.status(PROBE_TIMEOUT_MS);
      latencyMs = Math.round((performance.now() - t0) * 10) / 10;
      if (status.header) this.knownIds.set(member.name, idHex(status.header.member_id));
    } catch (err) {
      error = (err as Error).message;
    }
    let healthy = false;
    if (status) {
      try {
        await client.healthRead(PROBE_TIMEOUT_MS);
        healthy = true;
      } catch (err) {
        error = `unhealthy: ${(err as Error).message}`;
      }
    }
    if (healthy) this.targets.markHealthy?.(member.name);
    return { member, status, error, healthy, latencyMs };
  }

  /** Active alarms by member hex id, from the first member that answers (else the previous answer). */
  private async alarms(candidates: string[], previous: Map<string, string[]>): Promise<Map<string, string[]>> {
    for (const name of candidates) {
      const out = new Map<string, string[]>();
      let list: WireAlarm[];
      try {
        list = await this.targets.memberClient(name).alarms(PROBE_TIMEOUT_MS);
      } catch {
        continue;
      }
      for (const a of list) {
        const id = idHex(a.memberID);
        out.set(id, [...(out.get(id) ?? []), ALARM_NAMES[a.alarm] ?? String(a.alarm)]);
      }
      return out;
    }
    return previous;
  }

  private toStatus(
    r: { member: ClusterMember; status?: WireStatus; error?: string; healthy: boolean; latencyMs?: number },
    alarms: Map<string, string[]>,
  ): MemberStatus {
    const id = this.knownIds.get(r.member.name) ?? '';
    const st = r.status;
    const process = this.targets.processState?.(r.member.name);
    const errors = [...(st?.errors ?? []), ...(r.error ? [r.error] : [])];
    const out: MemberStatus = {
      name: r.member.name,
      id,
      endpoint: r.member.clientUrl,
      healthy: r.healthy,
      isLeader: st !== undefined && st.leader !== '0' && st.header !== null && st.header.member_id === st.leader,
      isLearner: st?.isLearner ?? false,
      leader: st && st.leader !== '0' ? idHex(st.leader) : '',
      raftTerm: st?.raftTerm ?? '',
      raftIndex: st?.raftIndex ?? '',
      raftAppliedIndex: st?.raftAppliedIndex ?? '',
      dbSize: Number(st?.dbSize ?? 0),
      dbSizeInUse: Number(st?.dbSizeInUse ?? 0),
      version: st?.version ?? '',
      alarms: alarms.get(id) ?? [],
      errors,
      checkedAt: new Date().toISOString(),
    };
    if (r.latencyMs !== undefined) out.probeLatencyMs = r.latencyMs;
    if (process !== undefined) out.process = process;
    return out;
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
