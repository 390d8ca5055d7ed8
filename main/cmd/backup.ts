// `pilothouse backup`: the backup commands. drill and restore are in
// backupDrill.ts.

import type { Command } from 'commander';
import { registerBackupDrillCommands } from './backupDrill';

export function registerBackupCommand(program: Command, setExitCode: (code: number) => void, cliPath: string): void {
  const backup = program.command('backup').description('back up, verify, drill and restore the control plane from snapshots');
  registerBackupDrillCommands(backup, setExitCode, cliPath);
}
