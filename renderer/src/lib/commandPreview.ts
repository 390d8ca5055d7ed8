// What each member action corresponds to on the command line, shown before
// the action runs (the services return the command they actually ran in
// ActionResult.command afterwards). Teaching the real command is the point:
// an operator should be able to do the same thing without the console.

import type { MemberAction, MemberStatus } from '../../../preload/contract';

export interface ActionSpec {
  action: MemberAction;
  label: string;
  /** Needs a confirmation: it takes a member away or moves leadership. */
  destructive: boolean;
}

export const MEMBER_ACTIONS: readonly ActionSpec[] = [
  { action: 'stop', label: 'Stop', destructive: true },
  { action: 'kill', label: 'Kill -9', destructive: true },
  { action: 'restart', label: 'Restart', destructive: true },
  { action: 'start', label: 'Start', destructive: false },
  { action: 'pause', label: 'Pause', destructive: true },
  { action: 'resume', label: 'Resume', destructive: false },
  { action: 'make-leader', label: 'Make leader', destructive: true },
  { action: 'defrag', label: 'Defrag', destructive: true },
];

export interface PreviewInput {
  member: Pick<MemberStatus, 'name' | 'id' | 'endpoint'>;
  /** The member's process id, when the supervisor runs it. */
  pid?: number;
  /** The current leader's client endpoint: move-leader must be sent to the leader. */
  leaderEndpoint?: string;
}

export function previewCommand(action: MemberAction, { member, pid, leaderEndpoint }: PreviewInput): string {
  const p = pid !== undefined ? String(pid) : '<pid>';
  switch (action) {
    case 'stop':
      return `kill -TERM ${p}   # ${member.name}`;
    case 'kill':
      return `kill -KILL ${p}   # ${member.name}`;
    case 'restart':
      return `kill -TERM ${p} && pilothouse etcd --name ${member.name} …`;
    case 'start':
      return `pilothouse etcd --name ${member.name} …`;
    case 'pause':
      return `kill -STOP ${p}   # ${member.name}`;
    case 'resume':
      return `kill -CONT ${p}   # ${member.name}`;
    case 'make-leader':
      return `etcdctl --endpoints=${leaderEndpoint ?? '<leader endpoint>'} move-leader ${member.id}`;
    case 'defrag':
      return `etcdctl --endpoints=${member.endpoint} defrag`;
  }
}

/** Which actions make sense in a member's current state (the rest are shown disabled). */
export function actionEnabled(action: MemberAction, m: Pick<MemberStatus, 'process' | 'isLeader' | 'healthy'>): boolean {
  const proc = m.process ?? (m.healthy ? 'running' : 'stopped');
  switch (action) {
    case 'start':
      return proc === 'stopped' || proc === 'crashed';
    case 'resume':
      return proc === 'paused';
    case 'stop':
    case 'kill':
    case 'pause':
      return proc === 'running' || proc === 'starting';
    case 'restart':
      return proc !== 'restarting';
    case 'make-leader':
      return proc === 'running' && !m.isLeader && m.healthy;
    case 'defrag':
      return proc === 'running' && m.healthy;
  }
}
