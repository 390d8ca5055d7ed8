// Every state the console shows carries a tone (colour), an icon (shape) and
// a word, so it reads without colour vision and in a screenshot alike.

import type { ClusterOverview, MemberStatus, NodeSummary, ProcessState, StartupStep, WalkthroughRunState, WalkthroughStepState } from '../../../preload/contract';

export type Tone = 'ok' | 'warn' | 'bad' | 'info' | 'muted';
export interface StateStyle {
  tone: Tone;
  /** A shape that differs per tone: ✓ ok, ▲ warning, ✕ bad, ◌ in progress, ■ stopped, ‖ paused. */
  icon: string;
  label: string;
}

const processStyles: Record<ProcessState, StateStyle> = {
  running: { tone: 'ok', icon: '✓', label: 'running' },
  starting: { tone: 'info', icon: '◌', label: 'starting' },
  restarting: { tone: 'info', icon: '↻', label: 'restarting' },
  paused: { tone: 'warn', icon: '‖', label: 'paused' },
  stopped: { tone: 'muted', icon: '■', label: 'stopped' },
  crashed: { tone: 'bad', icon: '✕', label: 'crashed' },
};

export function processStyle(state: ProcessState | undefined): StateStyle {
  return state ? processStyles[state] : { tone: 'muted', icon: '?', label: 'unknown' };
}

const healthStyles: Record<ClusterOverview['health'], StateStyle> = {
  healthy: { tone: 'ok', icon: '✓', label: 'healthy' },
  degraded: { tone: 'warn', icon: '▲', label: 'degraded' },
  down: { tone: 'bad', icon: '✕', label: 'down' },
  starting: { tone: 'info', icon: '◌', label: 'starting' },
};

export function healthStyle(health: ClusterOverview['health'] | undefined): StateStyle {
  return health ? healthStyles[health] : { tone: 'muted', icon: '?', label: 'unknown' };
}

/** A member's health: the process state wins when it is not running (a paused member may still look healthy to a stale probe). */
export function memberStyle(m: Pick<MemberStatus, 'healthy' | 'process' | 'errors'>): StateStyle {
  if (m.process && m.process !== 'running') return processStyle(m.process);
  if (!m.healthy) return { tone: 'bad', icon: '✕', label: 'unhealthy' };
  if (m.errors.length > 0) return { tone: 'warn', icon: '▲', label: 'errors' };
  return { tone: 'ok', icon: '✓', label: 'healthy' };
}

const stepStyles: Record<StartupStep['state'], StateStyle> = {
  pending: { tone: 'muted', icon: '○', label: 'pending' },
  running: { tone: 'info', icon: '◌', label: 'running' },
  done: { tone: 'ok', icon: '✓', label: 'done' },
  failed: { tone: 'bad', icon: '✕', label: 'failed' },
};

export function stepStyle(state: StartupStep['state']): StateStyle {
  return stepStyles[state];
}

export function decisionStyle(decision: 'allowed' | 'denied' | 'error'): StateStyle {
  if (decision === 'allowed') return { tone: 'ok', icon: '✓', label: 'allowed' };
  if (decision === 'denied') return { tone: 'bad', icon: '⊘', label: 'denied' };
  return { tone: 'warn', icon: '▲', label: 'error' };
}

/** A node: its Ready condition, with the simulated kubelet's switch named when it is off (the reason Ready went Unknown). */
export function nodeStyle(n: Pick<NodeSummary, 'ready' | 'kubelet'>): StateStyle {
  if (n.ready === 'True') return n.kubelet === 'running' ? { tone: 'ok', icon: '✓', label: 'Ready' } : { tone: 'warn', icon: '▲', label: `Ready · kubelet ${n.kubelet}` };
  if (n.ready === 'False') return { tone: 'bad', icon: '✕', label: 'NotReady' };
  return { tone: 'warn', icon: '?', label: n.kubelet === 'running' ? 'Unknown' : `Unknown · kubelet ${n.kubelet}` };
}

const runStyles: Record<WalkthroughRunState, StateStyle> = {
  running: { tone: 'info', icon: '◌', label: 'running' },
  waiting: { tone: 'warn', icon: '▲', label: 'waiting for confirmation' },
  paused: { tone: 'warn', icon: '‖', label: 'paused' },
  succeeded: { tone: 'ok', icon: '✓', label: 'succeeded' },
  failed: { tone: 'bad', icon: '✕', label: 'failed' },
  cancelled: { tone: 'muted', icon: '■', label: 'cancelled' },
  interrupted: { tone: 'bad', icon: '✕', label: 'interrupted' },
};

export function runStyle(state: WalkthroughRunState): StateStyle {
  return runStyles[state];
}

const walkthroughStepStyles: Record<WalkthroughStepState, StateStyle> = {
  pending: { tone: 'muted', icon: '○', label: 'pending' },
  running: { tone: 'info', icon: '◌', label: 'running' },
  paused: { tone: 'warn', icon: '‖', label: 'paused' },
  succeeded: { tone: 'ok', icon: '✓', label: 'done' },
  failed: { tone: 'bad', icon: '✕', label: 'failed' },
  cancelled: { tone: 'muted', icon: '■', label: 'cancelled' },
  skipped: { tone: 'muted', icon: '–', label: 'skipped' },
};

export function walkthroughStepStyle(state: WalkthroughStepState): StateStyle {
  return walkthroughStepStyles[state];
}
