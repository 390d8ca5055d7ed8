// `pilothouse certs check-expiration|renew all --data-dir DIR`: kubeadm
// 1.32's certificate commands for a local plane's PKI (../pki/renewal.ts).
// check-expiration prints kubeadm's two tables (Go tabwriter, minwidth 10,
// padding 3; dates as "Jan 02, 2006 15:04 UTC"; residual time as
// apimachinery's ShortHumanDuration). renew all prints kubeadm's
// "<long name> renewed" lines, then, when the process hosting the plane is
// alive (DIR/controlplane.pid), sends it SIGHUP so it restarts the
// components in turn, else tells the user to restart them.

import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { expirationOf, pkiInventory, renewAll, type ExpirationInfo } from '../common/pki/renewal';

type Out = (text: string) => void;

/** The pid file the process hosting the plane writes; SIGHUP makes it restart the components in turn. */
export const CONTROL_PLANE_PID_FILE = 'controlplane.pid';

export function runCheckExpiration(dataDir: string, now: Date, stdout: Out): number {
  const { cas, certs } = pkiInventory(dataDir);
  const yesNo = 'no'.padEnd(8);
  const certRows = certs.map((c) => expirationRow(expirationOf(c), now, [c.caName, yesNo]));
  const caRows = cas.map((c) => (existsSync(c.pair.cert) ? expirationRow(expirationOf(c), now, [yesNo]) : [`!MISSING! ${c.name}`, '', '', '']));
  stdout(
    tabwrite([['CERTIFICATE', 'EXPIRES', 'RESIDUAL TIME', 'CERTIFICATE AUTHORITY', 'EXTERNALLY MANAGED'], ...certRows]) +
      '\n' +
      tabwrite([['CERTIFICATE AUTHORITY', 'EXPIRES', 'RESIDUAL TIME', 'EXTERNALLY MANAGED'], ...caRows]),
  );
  return 0;
}

export async function runRenewAll(dataDir: string, stdout: Out, stderr: Out, signal: (pid: number) => boolean = sighup): Promise<number> {
  const { cas } = pkiInventory(dataDir);
  const missing = cas.find((c) => !existsSync(c.pair.cert) || !existsSync(c.pair.key));
  if (missing) {
    stderr(`error: failure loading ${missing.name} certificate authority: couldn't load the certificate file ${missing.pair.cert}\n`);
    return 1;
  }
  for (const c of await renewAll(dataDir)) stdout(`${c.longName} renewed\n`);
  const pid = controlPlanePid(dataDir);
  if (pid !== undefined && signal(pid)) {
    stdout(`\nDone renewing certificates. The control plane is restarting the components in turn (pid ${pid}).\n`);
  } else {
    stdout(
      '\nDone renewing certificates. You must restart the etcd members, the API server and the controllers ' +
        '(stop and start `pilothouse up` or the console), so that they can use the new certificates.\n',
    );
  }
  return 0;
}

export function registerCertsCommand(program: Command, setExitCode: (code: number) => void): void {
  const stdout: Out = (t) => void process.stdout.write(t);
  const stderr: Out = (t) => void process.stderr.write(t);
  const certs = program.command('certs').description("commands related to handling a local plane's certificates (as kubeadm certs)");
  certs
    .command('check-expiration')
    .description('check certificates expiration for the plane under --data-dir')
    .requiredOption('--data-dir <dir>', 'the plane directory (`pilothouse up --data-dir`)')
    .action((opts: { dataDir: string }) => setExitCode(runCheckExpiration(resolve(opts.dataDir), new Date(), stdout)));
  const renew = certs.command('renew').description('renew certificates for the plane under --data-dir');
  renew
    .command('all')
    .description('renew all available certificates (new keys and serials, same CAs), then restart the components')
    .requiredOption('--data-dir <dir>', 'the plane directory (`pilothouse up --data-dir`)')
    .action(async (opts: { dataDir: string }) => setExitCode(await runRenewAll(resolve(opts.dataDir), stdout, stderr)));
}

function expirationRow(e: ExpirationInfo, now: Date, rest: string[]): string[] {
  return [e.name, formatExpiry(e.notAfter), shortHumanDuration(e.notAfter.getTime() - now.getTime()), ...rest];
}

/** Go's "Jan 02, 2006 15:04 MST" for a UTC time. */
export function formatExpiry(d: Date): string {
  const month = d.toLocaleString('en-US', { month: 'short', timeZone: 'UTC' });
  const two = (n: number) => String(n).padStart(2, '0');
  return `${month} ${two(d.getUTCDate())}, ${d.getUTCFullYear()} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())} UTC`;
}

/** apimachinery's duration.ShortHumanDuration. */
export function shortHumanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 24) return `${hours}h`;
  if (hours < 24 * 365) return `${Math.trunc(hours / 24)}d`;
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/**
 * Go's text/tabwriter as kubeadm configures it (minwidth 10, padding 3,
 * spaces) for rows whose cells all but the last end in a tab: each such
 * column is as wide as its widest cell plus 3, at least 10; the last cell
 * is written as is.
 */
export function tabwrite(rows: string[][]): string {
  const widths: number[] = [];
  for (const r of rows) r.slice(0, -1).forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 10, cell.length + 3)));
  return rows.map((r) => r.map((cell, i) => (i < r.length - 1 ? cell.padEnd(widths[i]!) : cell)).join('') + '\n').join('');
}

function controlPlanePid(dataDir: string): number | undefined {
  const file = join(dataDir, CONTROL_PLANE_PID_FILE);
  if (!existsSync(file)) return undefined;
  const pid = Number.parseInt(readFileSync(file, 'utf8').trim(), 10);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  // A pid file left by a plane that was killed may name a process that reused the pid
  // (SIGHUP would end it): the writer started before it wrote the file.
  const started = processStartMs(pid);
  return started === undefined || started <= statSync(file).mtimeMs + 1000 ? pid : undefined;
}

/** When pid started (Linux: /proc/<pid>/stat starttime after /proc/stat btime, at 100 ticks a second); undefined elsewhere. */
function processStartMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const startTicks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const btime = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
    return Number.isFinite(startTicks) && Number.isFinite(btime) ? btime * 1000 + startTicks * 10 : undefined;
  } catch {
    return undefined;
  }
}

/** SIGHUP to pid; false when no such process is alive. */
function sighup(pid: number): boolean {
  try {
    process.kill(pid, 'SIGHUP');
    return true;
  } catch {
    return false;
  }
}
