// The restore walkthrough's stop and start steps show the host's own command:
// the CLI signals the process named in DIR/controlplane.pid and runs `up`
// again; the console stops the processes it supervises (their pids, in its
// supervisor's order) and starts the members with their own command lines.

import { describe, expect, it } from 'vitest';
import { restoreWalkthrough } from '../../../main/backup/restoreWalkthrough';
import type { RecoveryPlane } from '../../../main/backup/recovery';
import type { ConsoleCluster } from '../../../main/console/cluster';
import { consoleRecoveryCommands } from '../../../main/console/consoleWalkthroughs';

const params = { file: '/snap/x.db', dataDir: '/home/op/.pilothouse' };
const noPlane = (): RecoveryPlane => {
  throw new Error('no step runs here');
};
const commandOf = (def: ReturnType<typeof restoreWalkthrough>, id: string) => def.steps(params).find((s) => s.id === id)!.command;

/** An embedded cluster as far as the commands read it: its components' pids and the members' command lines. */
function cluster(): ConsoleCluster {
  const members = ['m1', 'm2', 'm3'].map((name) => ({ name, clientUrl: `https://127.0.0.1:${name}` }));
  const pids: Record<string, number> = { m1: 101, m2: 102, m3: 103, apiserver: 200, controllers: 300 };
  return {
    members,
    components: () => Object.entries(pids).map(([id, pid]) => ({ id, pid })),
    commandLine: (id: string) => ({ program: { command: '/usr/bin/node', args: ['/opt/my app/cli.js', 'etcd'] }, args: ['--name', id, '--data-dir', `${params.dataDir}/${id}`] }),
  } as unknown as ConsoleCluster;
}

describe('the restore walkthrough’s stop and start commands', () => {
  it('are the CLI’s when the host gives none', () => {
    const def = restoreWalkthrough({ plane: noPlane });
    expect(commandOf(def, 'stop')).toBe('kill -TERM $(cat /home/op/.pilothouse/controlplane.pid)');
    expect(commandOf(def, 'start')).toBe('pilothouse up --data-dir /home/op/.pilothouse');
  });

  it('are the console’s supervised processes in the console', () => {
    const c = cluster();
    const def = restoreWalkthrough({ plane: noPlane, commands: (p) => consoleRecoveryCommands(c, p) });
    const stop = commandOf(def, 'stop');
    expect(stop).toMatch(/^kill -TERM 300 200 101 102 103 +# controllers, apiserver, m1, m2, m3: the console's supervised processes/);
    expect(stop).not.toContain('controlplane.pid');
    expect(commandOf(def, 'start')).toBe("/usr/bin/node '/opt/my app/cli.js' etcd --name m1 --data-dir /home/op/.pilothouse/m1   # and m2, m3, started again by the console from /home/op/.pilothouse");
  });
});
