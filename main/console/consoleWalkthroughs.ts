// The walkthroughs the console offers, built from the definitions in
// main/backup with the console's own members (the same definitions the CLI
// runs headless). Each gets what the start card says and how a request from
// the renderer becomes the run's parameters.

import type { ConsoleCluster } from './cluster';
import type { ConsoleWalkthrough } from './walkthroughs';

export interface ConsoleWalkthroughDeps {
  dataDir: string;
  /** DIR/snapshots */
  snapshotsDir: string;
  cluster: ConsoleCluster;
}

export function consoleWalkthroughs(_deps: ConsoleWalkthroughDeps): ConsoleWalkthrough[] {
  return [];
}
