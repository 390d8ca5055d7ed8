// Which of the tools a console terminal is for (etcdctl, kubectl) are missing
// from the shell's PATH, each with how to install it, so the terminal can say
// so up front instead of leaving the person with "command not found".

import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The tools a console terminal is meant for and where each comes from. */
export const TERMINAL_TOOLS: readonly { name: string; hint: string }[] = [
  { name: 'etcdctl', hint: 'etcdctl: apt-get install etcd-client' },
  { name: 'kubectl', hint: 'kubectl: install it from https://kubernetes.io/docs/tasks/tools/#kubectl' },
];

/** True when `name` is an executable file in one of PATH's directories. */
export function onPath(name: string, path: string): boolean {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return true;
    } catch {
      // not in this directory
    }
  }
  return false;
}

/** One install hint per tool absent from `path`. */
export function missingToolHints(path: string): string[] {
  return TERMINAL_TOOLS.filter((t) => !onPath(t.name, path)).map((t) => t.hint);
}
