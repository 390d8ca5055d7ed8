// The console's session: which cluster it shows now — the embedded lab or a
// saved connection — and the one set of console services for it. Every
// cluster call is forwarded to the current services; the session answers the
// connection calls itself (list, save, delete, import, switch, current,
// clone into the lab).
//
// A switch disposes the old services before it creates the new ones, so the
// two never share a port, a file or the event sink: events of services that
// are no longer current are dropped once their dispose has finished. The lab
// claims DIR/controlplane.pid while it is shown (another host under DIR is
// refused before anything changes) and releases it when switched away.
//
// Each cluster keeps its console state apart: the lab under DIR (where its
// plane lives), a connection under DIR/connections/<id>/ (its leader
// timeline, snapshots, walkthrough runs, logs).

import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import {
  CLUSTER_CALLS,
  type BridgeEventName,
  type BridgeEvents,
  type BridgeHandlers,
  type ClusterHandlers,
  type ConnectionImport,
  type CurrentCluster,
  type EventSink,
} from '../../preload/contract';
import type { RestartablePlane } from '../controlplane/pidFile';
import type { AttachOptions } from './attachedCluster';
import { draftFromEtcdctlEnvFile, draftFromEtcdctlVars, draftFromKubeadmDir, draftsFromKubeconfigs, KUBEADM_ETCD_DIR, kubeconfigFiles } from './connectionImport';
import { attachOptionsOf, checkConnectionDraft, connectionKind, connectionsFile, ConnectionStore, LAB_ENTRY, LAB_ID } from './connections';
import { writeContextFile } from './kubeContexts';
import { cloneIntoLab } from './labClone';
import { checkSnapshotName } from './snapshots';

/** One cluster's services as a host runs them. */
export interface SessionServices {
  handlers: ClusterHandlers;
  start(): Promise<void>;
  dispose(): Promise<void>;
  /** The embedded plane, restarted in turn on SIGHUP (absent when attached). */
  readonly supervisor?: RestartablePlane;
}

export interface SessionTarget {
  /** Where this cluster's console state lives. */
  dataDir: string;
  connection: { id: string; name: string };
  /** Absent: the embedded lab. */
  attach?: AttachOptions;
  events: EventSink;
}

export interface ConsoleSessionsOptions {
  dataDir: string;
  events: EventSink;
  create: (target: SessionTarget) => SessionServices;
  /** Claims DIR/controlplane.pid for the lab and returns its release; throws when another host holds it. */
  hostPlane?: (plane: RestartablePlane) => () => void;
  /** Tests: the variables and home directory the importers read (default: this process's). */
  env?: Record<string, string | undefined>;
  home?: string;
  /** Where a switch's failure to start is told. */
  log?: (line: string) => void;
  /** The lab's port base (a clone restores its members with the lab's own peer URLs). */
  labPortBase?: number;
}

interface Shown {
  current: CurrentCluster;
  services: SessionServices;
  /** Its events still reach the host (until its dispose has finished). */
  live: { value: boolean };
  releasePlane: () => void;
}

function requestOf(raw: unknown, what: string, fields: readonly string[]): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error(`${what} must be an object: { ${fields.join(', ')} }`);
  const r = raw as Record<string, unknown>;
  for (const k of Object.keys(r)) if (!fields.includes(k)) throw new Error(`${what}.${k}: no such field (known: ${fields.join(', ')})`);
  return r;
}

function snapshotOf(raw: unknown): string {
  const r = requestOf(raw, 'clone', ['snapshot']);
  if (typeof r.snapshot !== 'string') throw new Error(`clone.snapshot must be a snapshot file name, not ${JSON.stringify(r.snapshot)}`);
  checkSnapshotName(r.snapshot);
  return r.snapshot;
}

function idOf(raw: unknown, what: string): string {
  const r = requestOf(raw, what, ['id']);
  if (typeof r.id !== 'string' || r.id === '') throw new Error(`${what}.id must be a connection id, not ${JSON.stringify(r.id)}`);
  return r.id;
}

const IMPORT_SOURCES = ['etcdctl-env', 'env', 'kubeadm', 'kubeconfig'] as const;
type ImportSource = (typeof IMPORT_SOURCES)[number];

/** The import request, checked: a known source, and a path only as an absolute string. */
export function checkImportRequest(raw: unknown): { from: ImportSource; path?: string } {
  const r = requestOf(raw, 'import', ['from', 'path']);
  if (!IMPORT_SOURCES.includes(r.from as ImportSource)) throw new Error(`import.from must be one of ${IMPORT_SOURCES.join(', ')}, not ${JSON.stringify(r.from)}`);
  if (r.path === undefined || r.path === '') return { from: r.from as ImportSource };
  if (typeof r.path !== 'string' || !isAbsolute(r.path)) throw new Error(`import.path must be an absolute path, not ${JSON.stringify(r.path)}`);
  return { from: r.from as ImportSource, path: r.path };
}

export class ConsoleSessions {
  readonly store: ConnectionStore;
  readonly handlers: BridgeHandlers;
  private shown: Shown | undefined;
  private switching: string | undefined;
  private disposed = false;

  constructor(private readonly o: ConsoleSessionsOptions) {
    this.store = new ConnectionStore(connectionsFile(o.dataDir));
    const forwarded = Object.fromEntries(
      CLUSTER_CALLS.map((name) => [
        name,
        (...args: unknown[]) => {
          const fn = this.current().services.handlers[name] as ((...a: unknown[]) => unknown) | undefined;
          if (!fn) throw new Error(`the console services have no ${name}`);
          return fn(...args);
        },
      ]),
    ) as unknown as ClusterHandlers;
    this.handlers = {
      ...forwarded,
      listConnections: () => ({ current: this.current().current.id, connections: [LAB_ENTRY, ...this.store.list().map((c) => ({ ...c, kind: connectionKind(c) }))] }),
      saveConnection: (req) => {
        const draft = checkConnectionDraft(req);
        if (draft.id && !this.store.get(draft.id)) throw new Error(`no connection ${draft.id}`);
        return this.store.save(draft);
      },
      deleteConnection: (req) => {
        const id = idOf(req, 'delete');
        if (id === LAB_ID) throw new Error('the embedded lab is not a saved connection');
        if (id === this.current().current.id) throw new Error('the connection shown now cannot be deleted: switch to another first');
        return { deleted: this.store.delete(id) };
      },
      importConnections: (req) => this.importFrom(checkImportRequest(req)),
      switchCluster: (req) => this.switchTo(idOf(req, 'switch')),
      cloneIntoLab: (req) => this.cloneToLab(snapshotOf(req)),
      currentCluster: () => this.current().current,
    };
  }

  /**
   * Creates the first services: on `attach` (saved as a connection of its
   * name), else on the lab. Throws when the lab's DIR is another host's.
   */
  open(attach?: AttachOptions): void {
    if (this.shown) throw new Error('the session is open already');
    if (!attach) {
      this.shown = this.show(LAB_ID);
      return;
    }
    const kube = attach.kube && { ...attach.kube, ...(attach.auditLog && { auditLog: attach.auditLog }) };
    const profile = this.store.upsertByName({ name: attach.name, ...(attach.etcd && { etcd: attach.etcd }), ...(kube && { kube }), writable: attach.writable });
    this.shown = this.show(profile.id);
  }

  private current(): Shown {
    if (!this.shown) throw new Error('the console services are not ready');
    return this.shown;
  }

  /** The plane shown, for SIGHUP (absent when attached). */
  get supervisor(): RestartablePlane | undefined {
    return this.shown?.services.supervisor;
  }

  start(): Promise<void> {
    return this.current().services.start();
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    const s = this.shown;
    if (!s) return;
    await s.services.dispose();
    s.live.value = false;
    s.releasePlane();
  }

  /** The services for a connection id, created (not started); the lab's claim taken first. */
  private show(id: string): Shown {
    const live = { value: true };
    const events: EventSink = {
      emit: <E extends BridgeEventName>(event: E, payload: BridgeEvents[E]) => {
        if (live.value) this.o.events.emit(event, payload);
      },
    };
    if (id === LAB_ID) {
      let services: SessionServices | undefined;
      const releasePlane = this.o.hostPlane?.({ restartInTurn: (report) => services?.supervisor?.restartInTurn(report) ?? Promise.resolve(false) }) ?? (() => {});
      try {
        services = this.o.create({ dataDir: this.o.dataDir, connection: { id: LAB_ID, name: LAB_ENTRY.name }, events });
      } catch (err) {
        releasePlane();
        throw err;
      }
      return { current: { id: LAB_ID, name: LAB_ENTRY.name, mode: 'embedded', writable: true }, services, live, releasePlane };
    }
    const profile = this.store.get(id);
    if (!profile) throw new Error(`no connection ${id}`);
    const dataDir = join(this.o.dataDir, 'connections', id);
    const contextFile = profile.kube?.context ? writeContextFile(dataDir, profile.kube.context) : undefined;
    const services = this.o.create({ dataDir, connection: { id, name: profile.name }, attach: attachOptionsOf(profile, contextFile), events });
    return { current: { id, name: profile.name, mode: 'external', writable: profile.writable }, services, live, releasePlane: () => {} };
  }

  /**
   * Clone into the lab: the lab's members restored offline from a snapshot
   * the attached connection shown now took (labClone.ts), then the lab shown
   * and started on it. A failure leaves the lab as it was and the connection shown.
   */
  private async cloneToLab(snapshot: string): Promise<CurrentCluster> {
    const shown = this.current().current;
    if (shown.id === LAB_ID) throw new Error('clone into the lab copies an attached cluster: switch to its connection and take a snapshot first');
    const file = join(this.o.dataDir, 'connections', shown.id, 'snapshots', snapshot);
    if (!existsSync(file)) throw new Error(`stat ${file}: no such file or directory`);
    const portBase = this.o.labPortBase;
    if (portBase === undefined) throw new Error('this console has no lab port base: it cannot run the lab');
    return this.switchTo(LAB_ID, async () => {
      const r = await cloneIntoLab({ dataDir: this.o.dataDir, portBase, snapshotFile: file, log: (l) => this.o.log?.(`clone: ${l}`) });
      this.o.log?.(`clone: the lab boots from ${snapshot} of ${shown.name}${r.setAside ? `; its previous member dirs are in ${r.setAside}` : ''}`);
    });
  }

  /** before: run after the old services are gone and before the new are made (a clone's restore); its failure shows the old again. */
  private async switchTo(id: string, before?: () => Promise<void>): Promise<CurrentCluster> {
    if (this.disposed) throw new Error('the console is shutting down');
    if (this.switching) throw new Error(`a switch to ${this.switching} is in progress; try again when it has finished`);
    const old = this.current();
    if (id === old.current.id) return old.current;
    if (id !== LAB_ID && !this.store.get(id)) throw new Error(`no connection ${id}`);
    this.switching = id;
    try {
      await old.services.dispose();
      old.live.value = false;
      old.releasePlane();
      let next: Shown;
      try {
        await before?.();
        next = this.show(id);
      } catch (err) {
        // nothing else to show: back to the one shown before (its claim, if the lab, is free again)
        this.shown = this.show(old.current.id);
        void this.startShown(this.shown);
        throw err;
      }
      this.shown = next;
      this.o.events.emit('clusterSwitched', next.current);
      void this.startShown(next);
      return next.current;
    } finally {
      this.switching = undefined;
    }
  }

  private async startShown(s: Shown): Promise<void> {
    try {
      await s.services.start();
    } catch (err) {
      this.o.log?.(`${s.current.name} did not start: ${(err as Error).message}`);
    }
  }

  private importFrom(req: { from: ImportSource; path?: string }): ConnectionImport {
    const env = this.o.env ?? process.env;
    const read = (path: string): string => {
      if (!existsSync(path)) throw new Error(`${path}: no such file`);
      return readFileSync(path, 'utf8');
    };
    switch (req.from) {
      case 'etcdctl-env': {
        const path = req.path ?? join(this.o.dataDir, 'etcdctl.env');
        const draft = draftFromEtcdctlEnvFile(read(path), path);
        if (!draft) throw new Error(`${path} sets no ETCDCTL_ENDPOINTS`);
        return { source: path, drafts: [draft] };
      }
      case 'env': {
        const draft = draftFromEtcdctlVars(env, process.cwd());
        if (!draft) throw new Error("the console's environment has no ETCDCTL_ENDPOINTS");
        return { source: 'ETCDCTL_ENDPOINTS, ETCDCTL_CACERT, ETCDCTL_CERT, ETCDCTL_KEY', drafts: [draft] };
      }
      case 'kubeadm': {
        const dir = req.path ?? KUBEADM_ETCD_DIR;
        return { source: dir, drafts: [draftFromKubeadmDir(dir, existsSync)] };
      }
      case 'kubeconfig': {
        const paths = req.path ? [req.path] : kubeconfigFiles(env, this.o.home ?? homedir());
        // kubectl skips a KUBECONFIG entry that does not exist
        const files = paths.filter((p) => existsSync(p)).map((path) => ({ path, text: read(path) }));
        if (files.length === 0) throw new Error(`${paths.join(', ')}: no such file`);
        return { source: files.map((f) => f.path).join(':'), ...draftsFromKubeconfigs(files) };
      }
    }
  }
}
