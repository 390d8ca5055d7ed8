// How the browser gets the tokened URL without it ever being on a command
// line: a process's arguments are readable by every user on the machine
// (`ps -eo args`, /proc/PID/cmdline), and the opener (xdg-open, open, start)
// and the browser it starts would both carry the URL there. Instead the host
// writes a small redirecting page into the data dir, readable only by its
// owner (0600, like console.url), and the opener gets that file's path. The
// page sends the browser on to the URL; its #token= fragment is never sent to
// a server, and the renderer moves it out of the address bar on load.

import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function launcherPageFile(dataDir: string): string {
  return join(dataDir, 'console-open.html');
}

/** Write a file only its owner can read, also when it existed with a looser mode (mode applies only on create). */
export function writePrivateFile(path: string, text: string): void {
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600);
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/** A page that redirects at once (no script: a meta refresh), with a link for a browser that does not follow it. */
export function launcherPageHtml(url: string): string {
  const u = escapeHtml(url);
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="referrer" content="no-referrer">',
    `<meta http-equiv="refresh" content="0;url=${u}">`,
    '<title>Pilothouse</title></head>',
    `<body><p>Opening the Pilothouse console… <a href="${u}" rel="noreferrer">continue</a></p></body></html>`,
    '',
  ].join('\n');
}

/** Writes the launcher page for `url` into the data dir and returns its path (safe to pass on a command line). */
export function writeLauncherPage(dataDir: string, url: string): string {
  const file = launcherPageFile(dataDir);
  writePrivateFile(file, launcherPageHtml(url));
  return file;
}
