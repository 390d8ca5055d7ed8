// `pilothouse upgrade plan`: for the plane running under a data dir, what an
// upgrade to a target build and/or flag settings would do, and whether apply
// may go ahead — each component's current and target build and flags, the
// skew policy, and the preflight checks (every member healthy with a quorum
// to spare, one leader, no alarm, every node Ready, a verified backup younger
// than an hour). Read-only.

import { join } from 'node:path';
import { dataDirAccess } from '../backup/clusterAccess';
import { listBackups } from '../backup/catalog';
import { preflight } from '../backup/preflight';
import { kubeconfigClient } from '../controlplane/readiness';
import { readDataFormat } from '../etcd/server/dataFormat';
import { buildCli, componentFlags, COMPONENT_KINDS, readBuild, type Build, type ComponentKind } from './build';
import { checkSettingsKnown, parseSetting, settingChanges, withSettings, type FlagSetting } from './flagSettings';
import { flagValue, surveyPlane, type RunningComponent } from './planeSurvey';
import { checkSkew, type SkewCheck } from './skew';

/** kubeadm's rule for etcd: a snapshot first; here one verified within the hour. */
export const BACKUP_MAX_AGE_MS = 60 * 60 * 1000;

export interface PlannedComponent {
  id: string;
  kind: ComponentKind;
  pid: number;
  current: { version?: string; commit?: string; flags: string[] };
  target: { version?: string; commit?: string; flags: string[] };
  flagChanges: { flag: string; from?: string; to: string }[];
}

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export interface UpgradePlan {
  dataDir: string;
  /** The target build; undefined when only flags change. */
  target?: Build;
  settings: FlagSetting[];
  components: PlannedComponent[];
  /** Component ids in the order apply replaces them. */
  order: string[];
  /** The member that leads now (replaced last of the members). */
  leader?: string;
  skew: SkewCheck[];
  preflight: Check[];
  /** Why apply would refuse; empty when it may go ahead. */
  refusals: string[];
  /** What --force would let through (the backup check only). */
  forceable: string[];
  /** The `pilothouse` entry script the plane runs now (a rehearsal runs its copy with it). */
  currentCli?: string;
  /** Renew every leaf certificate (new keys and serials, same CAs) and restart every component to load them. */
  renewCerts?: boolean;
}

export interface PlanOptions {
  dataDir: string;
  /** A directory holding a built Pilothouse (DIR/out/main/cli.js). */
  to?: string;
  set?: string[];
  renewCerts?: boolean;
  now?: Date;
}

async function preflightChecks(dataDir: string, now: Date): Promise<{ checks: Check[]; leader?: string }> {
  const checks: Check[] = [];
  const cluster = dataDirAccess(dataDir).connect();
  let leader: string | undefined;
  try {
    const pf = await preflight(cluster);
    leader = pf.leader;
    const healthy = pf.members.filter((m) => m.healthy).length;
    const quorum = Math.floor(pf.members.length / 2) + 1;
    checks.push({
      name: 'members',
      ok: healthy === pf.members.length,
      detail: `${healthy}/${pf.members.length} members healthy${healthy < pf.members.length ? ` (${pf.members.filter((m) => !m.healthy).map((m) => `${m.name}: ${m.error}`).join('; ')})` : ''}`,
    });
    checks.push({
      name: 'quorum',
      ok: healthy - 1 >= quorum,
      detail: `with one member down for its turn, ${healthy - 1} of ${pf.members.length} stay up; a quorum is ${quorum}`,
    });
    checks.push({ name: 'leader', ok: pf.leader !== undefined, detail: pf.leader ? `one leader: ${pf.leader}` : 'no single leader all members agree on' });
    checks.push({ name: 'alarms', ok: pf.alarms.length === 0, detail: pf.alarms.length === 0 ? 'no alarm' : `alarms raised: ${pf.alarms.join(', ')}` });
  } finally {
    cluster.close();
  }
  const rest = kubeconfigClient(join(dataDir, 'kubeconfig'), 'pilothouse-upgrade');
  try {
    const nodes = await rest.request<{ items: { metadata: { name: string }; status?: { conditions?: { type: string; status: string }[] } }[] }>('GET', '/api/v1/nodes', {
      signal: AbortSignal.timeout(5000),
    });
    const notReady = nodes.items.filter((n) => !n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).map((n) => n.metadata.name);
    checks.push({ name: 'nodes', ok: notReady.length === 0, detail: notReady.length === 0 ? `${nodes.items.length}/${nodes.items.length} nodes Ready` : `not Ready: ${notReady.join(', ')}` });
  } catch (err) {
    checks.push({ name: 'nodes', ok: false, detail: `cannot list nodes: ${(err as Error).message}` });
  } finally {
    rest.close();
  }
  const newest = listBackups(join(dataDir, 'snapshots')).find((b) => b.meta?.facts.integrity === 'ok');
  const ageMs = newest ? now.getTime() - Date.parse(newest.takenAt) : Infinity;
  checks.push({
    name: 'backup',
    ok: ageMs <= BACKUP_MAX_AGE_MS,
    detail: newest
      ? `newest verified backup ${newest.name}, taken ${Math.round(ageMs / 60_000)} min ago${ageMs <= BACKUP_MAX_AGE_MS ? '' : ` (older than an hour: take one with pilothouse backup save --data-dir ${dataDir})`}`
      : `no verified backup in ${join(dataDir, 'snapshots')}: take one with pilothouse backup save --data-dir ${dataDir}`,
  });
  return { checks, ...(leader && { leader }) };
}

function applyOrder(components: RunningComponent[], leader: string | undefined): string[] {
  const members = components.filter((c) => c.kind === 'etcd').map((c) => c.id);
  return [...members.filter((m) => m !== leader), ...members.filter((m) => m === leader), ...components.filter((c) => c.kind !== 'etcd').map((c) => c.id)];
}

export async function makePlan(o: PlanOptions): Promise<UpgradePlan> {
  const now = o.now ?? new Date();
  const settings = (o.set ?? []).map(parseSetting);
  const target = o.to === undefined ? undefined : await readBuild(buildCli(o.to));
  const survey = await surveyPlane(o.dataDir);
  // The flags the settings name must exist in the build that will run them.
  const currentCli = survey.components[0]?.program.find((a) => a.endsWith('cli.js'));
  const cli = target?.cliPath ?? currentCli;
  if (settings.length > 0 && cli) {
    const kinds = [...new Set(settings.map((s) => s.kind))];
    const known = new Map<ComponentKind, Set<string>>(await Promise.all(kinds.map(async (k) => [k, await componentFlags(cli, k)] as const)));
    checkSettingsKnown(settings, known);
  }
  const components: PlannedComponent[] = survey.components.map((c) => ({
    id: c.id,
    kind: c.kind,
    pid: c.pid,
    current: { ...(c.version && { version: c.version }), ...(c.commit && { commit: c.commit }), flags: c.flags },
    target: {
      ...((target?.version ?? c.version) && { version: target?.version ?? c.version }),
      ...((target?.commit ?? c.commit) && { commit: target?.commit ?? c.commit }),
      flags: withSettings(c.flags, settings),
    },
    flagChanges: settingChanges(c.flags, settings, c.kind),
  }));
  for (const kind of COMPONENT_KINDS) {
    if (settings.some((s) => s.kind === kind) && !components.some((c) => c.kind === kind)) throw new Error(`--set names ${kind}, which does not run under ${o.dataDir}`);
  }
  const dataFormats = survey.components
    .filter((c) => c.kind === 'etcd')
    .map((c) => ({ member: c.id, format: readDataFormat(flagValue(c.flags, 'data-dir') ?? join(o.dataDir, c.id))?.format ?? 1 }));
  const skew = checkSkew({ components: survey.components, ...(target && { target }), dataFormats });
  const { checks, leader } = await preflightChecks(o.dataDir, now);
  const failedChecks = checks.filter((c) => !c.ok);
  const forceable = failedChecks.filter((c) => c.name === 'backup').map((c) => c.detail);
  const refusals = [...skew.filter((s) => !s.ok).map((s) => s.message), ...failedChecks.filter((c) => c.name !== 'backup').map((c) => c.detail), ...forceable];
  if (!target && settings.length === 0 && !o.renewCerts) refusals.push('nothing to do: give --to DIR (another build), --set COMPONENT.FLAG=VALUE and/or --renew-certs');
  return { dataDir: o.dataDir, ...(target && { target }), settings, components, order: applyOrder(survey.components, leader), ...(leader && { leader }), skew, preflight: checks, refusals, forceable, ...(currentCli && { currentCli }), ...(o.renewCerts && { renewCerts: true }) };
}
