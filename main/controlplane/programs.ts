// The programs of a local control plane, all run by this same program
// (`process.execPath cliPath etcd|controllers`; the API server's is in
// apiserverLayout.ts), and the controllers' flags and log file. `pilothouse
// up` and the console's supervisor both run them.

import { join } from 'node:path';
import type { Program } from './program';
import { DEFAULT_CONTROLLER_OPTIONS } from '../client/kube/context';

/**
 * The command that runs a member of this program. Under Electron,
 * process.execPath is the Electron binary, which behaves as Node with
 * ELECTRON_RUN_AS_NODE=1; under Node the variable is ignored.
 */
export function selfProgram(cliPath: string): Program {
  return { command: process.execPath, args: [cliPath, 'etcd'], env: { ELECTRON_RUN_AS_NODE: '1' } };
}

/** `pilothouse controllers` run by this same program. */
export function controllersProgram(cliPath: string): Program {
  return { command: process.execPath, args: [cliPath, 'controllers'], env: { ELECTRON_RUN_AS_NODE: '1' } };
}

/** Simulated nodes the controllers process runs by default (its --nodes default). */
export const CONTROLLER_NODES = DEFAULT_CONTROLLER_OPTIONS.nodes;

/** Flags and log file of the controllers process of the cluster under dataDir. */
export function controllersLayout(dataDir: string, nodes?: number): { args: string[]; logFile: string } {
  return { args: ['--data-dir', dataDir, ...(nodes !== undefined ? ['--nodes', String(nodes)] : [])], logFile: join(dataDir, 'logs', 'controllers.log') };
}
