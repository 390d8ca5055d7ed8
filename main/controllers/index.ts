// `pilothouse controllers`: the scheduler, the controller manager (with the
// node lifecycle controller, as in kube-controller-manager) and the
// simulated kubelets in one process, each as its own identity. The groups
// and what each starts are listed here, in one table; the run loop is
// program.ts, the flags main/cmd/controllers.ts.

import { controllerContext } from '../client/kube/serviceAccountCredentials';
import { startKubelets } from './kubelet/index';
import { startControllerManager } from './manager/index';
import { startNodeLifecycleController } from './nodelifecycle/index';
import type { ComponentGroup } from './program';
import { startScheduler } from './scheduler/index';

export const COMPONENT_GROUPS: ComponentGroup[] = [
  { name: 'kube-scheduler', elected: true, identity: 'scheduler', starts: [(ctx) => startScheduler(ctx)] },
  {
    name: 'kube-controller-manager',
    elected: true,
    identity: 'controller-manager',
    starts: [(ctx) => startControllerManager(ctx), async (ctx) => startNodeLifecycleController(await controllerContext(ctx, 'nodelifecycle'))],
  },
  { name: 'kubelet', elected: false, identity: 'kubelet', starts: [(ctx) => startKubelets(ctx)] },
];

export { runGroup, type ComponentGroup, type LeaderElectionFlags, type ProgramDeps, type RunningGroup } from './program';
