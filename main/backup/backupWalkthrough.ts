// The backup walkthrough: preflight → snapshot → verify → store, each step
// naming the etcdctl or pilothouse command it stands for. The CLI
// (`pilothouse backup save`, headless) and the console run this same
// definition through the walkthrough engine; only how the members are reached
// differs (BackupWalkthroughEnv.connect).
//
// Params are JSON (persisted with the run): the file is chosen before the run
// starts, so a run resumed after a restart writes the same file. Every step is
// safe to run again: the snapshot step rewrites FILE.part from the start.

import { dirname } from 'node:path';
import { humanizeBytes } from '../etcd/snapshot/index';
import type { StepContext, StepDefinition, WalkthroughDefinition } from '../walkthrough/types';
import { listBackups } from './catalog';
import { etcdctlFlags, type BackupCluster, type ClusterAddress } from './clusterAccess';
import { inspectSnapshot, type SnapshotFacts } from './inspect';
import { writeMetadata, type BackupMetadata } from './metadata';
import { preflight, type PreflightResult } from './preflight';
import { prune, selectForPruning } from './retention';
import { saveSnapshot } from './save';

export interface BackupParams extends Record<string, unknown> {
  /** Where the snapshot goes (DIR/snapshots/<time>.db unless --out). */
  file: string;
  /** Stream from this member instead of the leader. */
  member?: string;
  source: 'save' | 'schedule';
  /** Scheduled backups of the file's directory to keep (only with source 'schedule'). */
  retention?: number;
  quotaBytes?: number;
  /** The data dir, for the commands shown (pilothouse backup list --data-dir DIR). */
  dataDir?: string;
}

export interface BackupWalkthroughEnv {
  /** The members, reached afresh for each run (closed when the run ends or fails). */
  connect(): BackupCluster;
  /** Their URLs and TLS files, for the commands shown. */
  address: ClusterAddress;
  /** How the shown commands name `pilothouse` (default "pilothouse"). */
  pilothouse?: string;
}

interface RunState {
  preflight?: Pick<PreflightResult, 'leader' | 'clusterId' | 'revision' | 'dbSizeBytes' | 'quotaBytes' | 'summary'>;
  snapshot?: { member: string; url: string; takenAt: string; bytes: number; durationMs: number };
  facts?: SnapshotFacts;
  stored?: { metadata: string; pruned: string[] };
}

export const BACKUP_KIND = 'backup';

export function backupWalkthrough(env: BackupWalkthroughEnv): WalkthroughDefinition<BackupParams> {
  const ph = env.pilothouse ?? 'pilothouse';
  return {
    kind: BACKUP_KIND,
    title: 'Back up etcd',
    steps(params) {
      let cluster: BackupCluster | undefined;
      const members = () => (cluster ??= env.connect());
      const done = () => {
        cluster?.close();
        cluster = undefined;
      };
      const st = (ctx: StepContext) => ctx.state as RunState;
      const all = etcdctlFlags(env.address);
      // the leader is known only once the preflight ran; the step logs the resolved command
      const leaderUrl = "<the leader's client URL>";
      const one = params.member ? etcdctlFlags(env.address, params.member) : `--endpoints=${leaderUrl}${env.address.tlsFlags ? ` ${env.address.tlsFlags}` : ''}`;
      const steps: StepDefinition[] = [
        {
          id: 'preflight',
          title: 'Preflight: members, leader, alarms, quota',
          why: 'A snapshot of an unhealthy cluster may miss writes or fail half-way; one over its quota restores into a cluster that refuses writes.',
          command: `etcdctl ${all} endpoint health && etcdctl ${all} endpoint status -w table && etcdctl ${all} alarm list`,
          resumable: true,
          async run(ctx) {
            const r = await preflight(members(), params.quotaBytes !== undefined ? { quotaBytes: params.quotaBytes } : {});
            for (const m of r.members) ctx.log(m.healthy ? `${m.name} ${m.id} healthy, DB ${humanizeBytes(m.dbSize ?? 0)}${m.name === r.leader ? ', leader' : ''}` : `${m.name} unhealthy: ${m.error}`);
            for (const a of r.alarms) ctx.log(a);
            if (!r.ok) {
              done();
              throw new Error(r.summary);
            }
            st(ctx).preflight = { leader: r.leader, clusterId: r.clusterId, revision: r.revision, dbSizeBytes: r.dbSizeBytes, quotaBytes: r.quotaBytes, summary: r.summary };
            return r.summary;
          },
        },
        {
          id: 'snapshot',
          title: params.member ? `Snapshot from ${params.member}` : 'Snapshot from the leader',
          why: 'The leader has every committed write; the member streams its whole database, which is written beside the target and renamed only once complete.',
          command: `etcdctl ${one} snapshot save ${params.file}`,
          resumable: true,
          async run(ctx) {
            const name = params.member ?? st(ctx).preflight?.leader;
            const all = members().members;
            const m = all.find((x) => x.name === name);
            if (m === undefined) {
              done();
              throw new Error(name === undefined ? 'no leader known (run the preflight again)' : `no member ${name} (members: ${all.map((x) => x.name).join(', ')})`);
            }
            ctx.log(`$ etcdctl ${etcdctlFlags(env.address, m.name)} snapshot save ${params.file}`);
            ctx.log(`streaming from ${m.name} (${m.url}) into ${params.file}.part`);
            const takenAt = new Date().toISOString();
            try {
              const r = await saveSnapshot({
                client: m.client,
                file: params.file,
                signal: ctx.signal,
                onProgress: (p) => ctx.progress({ done: p.bytes, ...(p.totalBytes !== undefined ? { total: p.totalBytes } : {}), unit: 'bytes' }),
              });
              st(ctx).snapshot = { member: m.name, url: m.url, takenAt, bytes: r.bytes, durationMs: r.durationMs };
              const mibs = r.bytes / 1024 / 1024 / Math.max(r.durationMs / 1000, 0.001);
              return `Snapshot saved at ${params.file}: ${humanizeBytes(r.bytes)} from ${m.name} in ${r.durationMs} ms (${mibs.toFixed(1)} MiB/s)`;
            } catch (err) {
              done();
              throw err;
            }
          },
        },
        {
          id: 'verify',
          title: 'Verify the snapshot',
          why: 'Reading the file back proves it is whole (its sha256 trailer) and says what it holds: revision, keys, and objects per Kubernetes resource.',
          command: `${ph} backup verify ${params.file}`,
          resumable: true,
          async run(ctx) {
            let facts: SnapshotFacts;
            try {
              facts = inspectSnapshot(params.file);
            } catch (err) {
              done();
              throw err;
            }
            for (const line of factLines(facts)) ctx.log(line);
            const before = st(ctx).preflight?.revision;
            if (before !== undefined && facts.revision < before) {
              done();
              throw new Error(`snapshot revision ${facts.revision} is older than the cluster's ${before} at preflight`);
            }
            st(ctx).facts = facts;
            return factsVerdict(facts);
          },
        },
        {
          id: 'store',
          title: params.source === 'schedule' ? `Store with its metadata, keep ${params.retention ?? 'all'} scheduled` : 'Store with its metadata',
          why: 'The metadata beside the file records what was verified, when and from where, so the backup list and a later drill need not trust the file name.',
          command: params.dataDir ? `${ph} backup list --data-dir ${params.dataDir}` : `ls -l ${dirname(params.file)}`,
          resumable: true,
          async run(ctx) {
            try {
              const s = st(ctx);
              if (!s.facts || !s.snapshot || !s.preflight) throw new Error('nothing to store: the earlier steps did not record their results');
              const meta: BackupMetadata = { facts: s.facts, takenAt: s.snapshot.takenAt, member: s.snapshot.member, clusterId: s.preflight.clusterId ?? '', source: params.source };
              writeMetadata(params.file, meta);
              ctx.log(`metadata written to ${params.file}.json`);
              let pruned: string[] = [];
              if (params.source === 'schedule' && params.retention !== undefined) {
                pruned = prune(selectForPruning(listBackups(dirname(params.file)), params.retention));
                for (const p of pruned) ctx.log(`retention ${params.retention}: removed ${p}`);
              }
              s.stored = { metadata: `${params.file}.json`, pruned };
              return `stored ${params.file} (0600) with ${params.file}.json${pruned.length ? `; pruned ${pruned.length} old scheduled backup(s)` : ''}`;
            } finally {
              done();
            }
          },
        },
      ];
      return steps;
    },
    figures(state) {
      const s = state as RunState;
      const out: Record<string, string | number> = {};
      if (s.facts) {
        out.file = s.facts.file;
        out.sizeBytes = s.facts.sizeBytes;
        out.sha256 = s.facts.sha256;
        out.hash = s.facts.hash.toString(16); // as etcdctl snapshot status prints it
        out.revision = s.facts.revision;
        out.totalKeys = s.facts.totalKeys;
        for (const [r, n] of Object.entries(s.facts.resources)) out[r] = n;
      }
      if (s.snapshot) {
        out.member = s.snapshot.member;
        out.saveMs = s.snapshot.durationMs;
      }
      if (s.preflight) out.dbSizeBytes = s.preflight.dbSizeBytes;
      if (s.stored) out.pruned = s.stored.pruned.length;
      return out;
    },
  };
}

/** The facts as verify prints them, one per line. */
export function factLines(f: SnapshotFacts): string[] {
  const lines = [
    `integrity: ${f.integrity} (sha256 ${f.sha256})`,
    `hash: ${f.hash.toString(16)}`,
    `revision: ${f.revision}`,
    `live keys: ${f.totalKeys} (at revision ${f.revision}; etcdctl snapshot status's TOTAL KEYS counts every key in the file, history included)`,
    `size: ${humanizeBytes(f.sizeBytes)} (${f.sizeBytes} bytes)`,
  ];
  for (const [r, n] of Object.entries(f.resources)) lines.push(`  ${r}: ${n}`);
  if (f.nonRegistryKeys > 0) lines.push(`  other keys (not under /registry/): ${f.nonRegistryKeys}`);
  const warning = kubernetesWarning(f);
  if (warning) lines.push(`warning: ${warning}`);
  return lines;
}

export function factsVerdict(f: SnapshotFacts): string {
  const objects = Object.values(f.resources).reduce((a, b) => a + b, 0);
  return `integrity ok, revision ${f.revision}, ${f.totalKeys} live keys (${objects} under /registry in ${Object.keys(f.resources).length} resources), ${humanizeBytes(f.sizeBytes)}`;
}

/**
 * A snapshot without any /registry key is a sound etcd snapshot but not of a
 * Kubernetes cluster: verify says so instead of failing, since the file
 * itself is intact (the drill and the restore refuse it).
 */
export function kubernetesWarning(f: SnapshotFacts): string | undefined {
  if (Object.keys(f.resources).length > 0) return undefined;
  return `no Kubernetes objects: none of its ${f.totalKeys} keys is under /registry/ (not a snapshot of a Kubernetes cluster's etcd)`;
}
