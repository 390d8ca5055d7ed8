// Clone into the lab: the embedded lab under DIR booted from a snapshot of
// another cluster (one the console is attached to), so an operator can
// rehearse a restore, an upgrade or an experiment on a copy of production.
// The lab is not running while the console is attached elsewhere, so its
// members are restored offline, as `etcdctl snapshot restore` is used: each
// member's data dir is set aside under DIR/pre-clone-<time>/ and restored
// from the file with the lab's own layout (names, peer URLs, cluster token),
// the lab's PKI kept. Started next, the lab's members serve the copy and the
// lab's API server serves its objects. A failure puts the set-aside dirs
// back. A lab another process runs (DIR/controlplane.pid names a live
// process) is refused: nothing is touched then.

import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { inspectSnapshot, type SnapshotFacts } from '../backup/inspect';
import { clusterLayout } from '../controlplane/localCluster';
import { livePlaneHost } from '../controlplane/pidFile';
import { restoreSnapshot } from '../etcd/snapshot/index';

/** The lab's cluster token (localCluster.ts's default): restored members belong to the lab's cluster. */
const LAB_TOKEN = 'pilothouse-local';

export interface LabCloneOptions {
  /** The lab's DIR (the embedded plane's data dir). */
  dataDir: string;
  /** The lab's port base (its members' peer URLs). */
  portBase: number;
  members?: number;
  snapshotFile: string;
  log?: (line: string) => void;
  now?: Date;
}

export interface LabClone {
  facts: SnapshotFacts;
  /** Where the lab's previous member dirs went (undefined on a first start: there were none). */
  setAside?: string;
}

export async function cloneIntoLab(o: LabCloneOptions): Promise<LabClone> {
  const log = o.log ?? (() => {});
  const host = livePlaneHost(o.dataDir);
  if (host !== undefined && host !== process.pid) throw new Error(`the lab under ${o.dataDir} is running (pid ${host}): stop it, or restore it from there (pilothouse backup restore FILE --data-dir ${o.dataDir})`);
  const facts = inspectSnapshot(o.snapshotFile);
  log(`snapshot ${o.snapshotFile}: revision ${facts.revision}, ${facts.totalKeys} keys, ${Object.keys(facts.resources).length} resources under /registry/`);
  const layout = clusterLayout({ dataDir: o.dataDir, members: o.members ?? 3, portBase: o.portBase, program: { command: '', args: [] }, tls: true });
  const stamp = (o.now ?? new Date()).toISOString().replace(/[:.]/g, '-');
  const aside = join(o.dataDir, `pre-clone-${stamp}`);
  const moved: { from: string; to: string }[] = [];
  for (const m of layout) {
    if (!existsSync(m.dataDir)) continue;
    mkdirSync(aside, { recursive: true, mode: 0o700 });
    const to = join(aside, m.name);
    renameSync(m.dataDir, to);
    moved.push({ from: m.dataDir, to });
  }
  if (moved.length > 0) log(`the lab's member dirs set aside in ${aside}`);
  const initialCluster = layout.map((m) => `${m.name}=${m.peerUrl}`).join(',');
  try {
    for (const m of layout) {
      const r = await restoreSnapshot({
        snapshotPath: o.snapshotFile,
        dataDir: m.dataDir,
        name: m.name,
        initialCluster,
        initialAdvertisePeerUrls: [m.peerUrl],
        initialClusterToken: LAB_TOKEN,
        skipHashCheck: false,
      });
      log(`${m.name}: restored into ${m.dataDir} (member ${r.memberId.toString(16)}, revision ${r.revision})`);
    }
  } catch (err) {
    for (const m of layout) rmSync(m.dataDir, { recursive: true, force: true });
    for (const { from, to } of moved) renameSync(to, from);
    if (moved.length > 0) rmSync(aside, { recursive: true, force: true });
    throw new Error(`the clone did not restore (${(err as Error).message}); the lab is as it was`);
  }
  return { facts, ...(moved.length > 0 && { setAside: aside }) };
}
