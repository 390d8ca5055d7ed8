// Opening a page in the user's browser, best effort: where there is no
// desktop (a server, CI, an SSH session) nothing is started — xdg-open would
// fall back to a text browser and take over the terminal — and any failure is
// ignored: the URL is printed anyway. What is opened ends up on the opener's
// and the browser's command lines, which every local user can read: the web
// host passes its launcher page's path (launcherPage.ts), never the tokened URL.

import { spawn } from 'node:child_process';

/** The command that opens a file or URL on this platform, or undefined where there is no desktop to open it on. */
export function browserCommand(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): { command: string; args: string[] } | undefined {
  if (platform === 'darwin') return { command: 'open', args: [] };
  if (platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""'] };
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return undefined;
  return { command: 'xdg-open', args: [] };
}

/** True when a browser was asked to open the target (not that it did). */
export function openBrowser(target: string, platform = process.platform, env = process.env): boolean {
  const cmd = browserCommand(platform, env);
  if (!cmd) return false;
  try {
    const child = spawn(cmd.command, [...cmd.args, target], { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
    return true;
  } catch {
    return false;
  }
}
