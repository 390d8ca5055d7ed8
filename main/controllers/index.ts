// `pilothouse controllers`: the scheduler, the controller manager (with the
// node lifecycle controller, as in kube-controller-manager) and the
// simulated kubelets in one process, each as its own identity. The groups
// and what each starts are listed here, in one table; the run loop is
// program.ts, the flags main/common/cli/controllersCommand.ts.

import type { ComponentGroup } from './program';

export const COMPONENT_GROUPS: ComponentGroup[] = [
  { name: 'kube-scheduler', elected: true, identity: 'scheduler', starts: [] },
  { name: 'kube-controller-manager', elected: true, identity: 'controller-manager', starts: [] },
  { name: 'kubelet', elected: false, identity: 'kubelet', starts: [] },
];

export { runGroup, type ComponentGroup, type LeaderElectionFlags, type ProgramDeps, type RunningGroup } from './program';
