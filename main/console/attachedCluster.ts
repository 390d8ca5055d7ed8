// A cluster the console attaches to and does not run: etcd members reached by
// their client URLs (with a CA and a client certificate, as etcdctl takes
// them), and/or a Kubernetes API server reached through a kubeconfig context.
// None of its processes is the console's (no process actions, no restore of
// its data dirs), and unless the connection is marked writable every action
// that changes it is refused (ConsoleCluster.writable).
//
// The members are found as `etcdctl member list` finds them: the first given
// endpoint that answers names every member; each member is reached at the
// endpoint given for it (matched by the member id its Status reports), else
// at its first advertised client URL. Until then the given endpoints stand
// for the members. What cannot be known about a foreign cluster (process
// states, pids, the API server's traces) is left unknown; its audit log,
// when a path to it is given, stands in for the traces.

import { existsSync, readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import type { ComponentStatus, EventSink, ProcessState, StartupStep } from '../../preload/contract';
import { MemberClient, type WireMember } from '../client/etcd/memberClient';
import { RestClient } from '../client/kube/restClient';
import type { ClientPem } from '../common/tlsChannel';
import { StartupSteps } from '../controlplane/startupSteps';
import type { ClusterCapabilities, ClusterMember, ConsoleCluster, ControlledProcess, RestorableMember, TlsFiles } from './cluster';
import { notPossible } from './cluster';
import { connectionError, probeTransport } from './connectionErrors';
import { kubeError, missingContext } from './kubeErrors';

export interface EtcdConnection {
  /** Client URLs; a bare host:port is http://, as etcdctl takes it. */
  endpoints: string[];
  cacert?: string;
  cert?: string;
  key?: string;
}

export interface KubeConnection {
  kubeconfig: string;
  /** The context to use; the kubeconfig's current-context when absent. */
  context?: string;
}

export interface AttachOptions {
  /** What the switcher calls it. */
  name: string;
  etcd?: EtcdConnection;
  kube?: KubeConnection;
  /** Allow actions that change the cluster (each still asks first). */
  writable: boolean;
  /** A file whose current-context selects kube.context, put before the user's kubeconfig in a terminal's KUBECONFIG. */
  contextFile?: string;
  /**
   * What feeds Watch events: etcd's keyspace, the Kubernetes API (watches as
   * the context's user), or both in one list. Default: etcd when endpoints
   * are given, else the Kubernetes API.
   */
  watch?: 'etcd' | 'kubernetes' | 'both';
  /** The API server's audit log (--audit-log-path, JSON lines) for the Admission log: traces exist only for Pilothouse's own API server. */
  auditLog?: string;
}

const STEPS = [
  { id: 'etcd', label: 'etcd members answer (member list)' },
  { id: 'kube', label: 'Kubernetes API answers (/version)' },
];

export function normalizeEndpoint(e: string): string {
  return e.includes('://') ? e.replace(/\/+$/, '') : `http://${e}`;
}

export class AttachedCluster implements ConsoleCluster {
  readonly mode = 'external' as const;
  readonly capabilities: ClusterCapabilities = { processControl: false, snapshotRestore: false };
  readonly restorable: readonly RestorableMember[] = [];
  readonly coldStartMs = undefined;
  readonly writable: boolean;
  private membersValue: ClusterMember[];
  private readonly clients = new Map<string, MemberClient>();
  private readonly steps: StartupSteps;
  private pem: ClientPem | undefined;
  private kubeConfig: KubeConfig | undefined;
  private rest: RestClient | undefined;

  constructor(
    readonly o: AttachOptions,
    events?: EventSink,
  ) {
    this.writable = o.writable;
    const endpoints = (o.etcd?.endpoints ?? []).map(normalizeEndpoint);
    this.membersValue = endpoints.map((url) => ({ name: new URL(url).host, clientUrl: url }));
    this.steps = new StartupSteps(STEPS.filter((s) => (s.id === 'etcd' ? o.etcd !== undefined : o.kube !== undefined)), events);
  }

  get name(): string {
    return this.o.name;
  }

  get members(): readonly ClusterMember[] {
    return this.membersValue;
  }

  private tlsPem(): ClientPem | undefined {
    const e = this.o.etcd;
    if (!e?.cert || !e.key) return undefined;
    return (this.pem ??= { cert: readFileSync(e.cert), key: readFileSync(e.key), ...(e.cacert && { ca: readFileSync(e.cacert) }) });
  }

  private clientFor(url: string): MemberClient {
    let c = this.clients.get(url);
    if (!c) {
      c = new MemberClient(url, this.tlsPem());
      this.clients.set(url, c);
    }
    return c;
  }

  memberClient(name: string): MemberClient {
    const m = this.membersValue.find((x) => x.name === name);
    if (!m) throw new Error(`no member ${name}`);
    return this.clientFor(m.clientUrl);
  }

  get hasApiServer(): boolean {
    return this.o.kube !== undefined;
  }

  get apiServerUrl(): string | undefined {
    try {
      return this.kube()?.getCurrentCluster()?.server;
    } catch {
      return undefined; // the kubeconfig does not load: the kube step says why
    }
  }

  /** Where Watch events come from (AttachOptions.watch, defaulted). */
  get watchSources(): ('etcd' | 'kubernetes')[] {
    const w = this.o.watch ?? (this.o.etcd ? 'etcd' : 'kubernetes');
    const want: ('etcd' | 'kubernetes')[] = w === 'both' ? ['etcd', 'kubernetes'] : [w];
    return want.filter((x) => (x === 'etcd' ? this.o.etcd !== undefined : this.o.kube !== undefined));
  }

  /** The context's namespace (where a namespaced watch goes when listing across namespaces is forbidden). */
  contextNamespace(): string | undefined {
    try {
      const kc = this.kube();
      return kc?.getContextObject(kc.getCurrentContext())?.namespace || undefined;
    } catch {
      return undefined;
    }
  }

  get kubeconfigPath(): string | undefined {
    return this.o.kube?.kubeconfig;
  }

  /** The kubeconfig loaded with the chosen context current; undefined without one (or when it does not load). */
  kube(): KubeConfig | undefined {
    if (!this.o.kube) return undefined;
    if (this.kubeConfig) return this.kubeConfig;
    const kc = new KubeConfig();
    kc.loadFromFile(this.o.kube.kubeconfig);
    if (this.o.kube.context) {
      if (!kc.getContextObject(this.o.kube.context)) throw new Error(missingContext(this.o.kube.kubeconfig, this.o.kube.context, kc.getContexts().map((c) => c.name)));
      kc.setCurrentContext(this.o.kube.context);
    }
    return (this.kubeConfig = kc);
  }

  /** A REST client as the context's user (exec plugins run here: a missing one is a clear error). */
  async restClient(): Promise<RestClient> {
    const kc = this.kube();
    if (!kc) throw new Error('no kubeconfig given: the console reaches this cluster only through etcd');
    if (this.rest) return this.rest;
    try {
      return (this.rest = await RestClient.fromKubeConfig(kc, 'pilothouse-console'));
    } catch (err) {
      // client-node runs the user's exec plugin here: a missing one rejects with the spawn error
      throw new Error(kubeError(err, { server: this.apiServerUrl, execCommand: kc.getCurrentUser()?.exec?.command }));
    }
  }

  etcdTlsFiles(): TlsFiles {
    const e = this.o.etcd;
    if (!e?.cert || !e.key || !e.cacert) throw new Error('this connection has no CA and client certificate (plain http members)');
    return { caFile: e.cacert, certFile: e.cert, keyFile: e.key };
  }

  /** The TLS files, or undefined for plain http members. */
  etcdTlsFilesIfAny(): TlsFiles | undefined {
    const e = this.o.etcd;
    return e?.cert && e.key && e.cacert ? { caFile: e.cacert, certFile: e.cert, keyFile: e.key } : undefined;
  }

  etcdTlsPem(): ClientPem {
    const pem = this.tlsPem();
    if (!pem) throw new Error('this connection has no client certificate (plain http members)');
    return pem;
  }

  /** Request traces exist only for Pilothouse's own API server, which the console runs. */
  apiServerTlsFiles(): TlsFiles | undefined {
    return undefined;
  }

  etcdctlEnv(): Record<string, string> {
    const e = this.o.etcd;
    if (!e) return {};
    return {
      ETCDCTL_API: '3',
      ETCDCTL_ENDPOINTS: this.membersValue.map((m) => m.clientUrl).join(','),
      ...(e.cacert && { ETCDCTL_CACERT: e.cacert }),
      ...(e.cert && { ETCDCTL_CERT: e.cert }),
      ...(e.key && { ETCDCTL_KEY: e.key }),
    };
  }

  /** KUBECONFIG for a terminal: the context file first (its current-context wins), then the user's file — nothing copied. */
  kubeconfigEnv(): string | undefined {
    if (!this.o.kube) return undefined;
    return this.o.contextFile && existsSync(this.o.contextFile) ? `${this.o.contextFile}:${this.o.kube.kubeconfig}` : this.o.kube.kubeconfig;
  }

  components(): ComponentStatus[] {
    return [];
  }

  hasComponent(): boolean {
    return false;
  }

  processState(): ProcessState | undefined {
    return undefined;
  }

  markHealthy(): void {}

  async checkReadiness(): Promise<boolean | undefined> {
    if (!this.o.kube) return undefined;
    try {
      const rest = await this.restClient();
      await rest.request('GET', '/readyz', { signal: AbortSignal.timeout(2_000) });
      return true;
    } catch {
      return false;
    }
  }

  /** Members from the first endpoint that lists them, each at the endpoint given for it. */
  private async discover(timeoutMs: number): Promise<{ members: ClusterMember[]; via: string }> {
    const deadline = Date.now() + timeoutMs;
    const given = this.membersValue.map((m) => m.clientUrl);
    const errors = new Map<string, string>();
    while (Date.now() < deadline) {
      for (const url of given) {
        try {
          const list = await this.clientFor(url).memberList(Math.min(3_000, Math.max(500, deadline - Date.now())));
          const byId = new Map<string, string>();
          await Promise.all(
            given.map(async (u) => {
              const st = await this.clientFor(u).status(1_500).catch(() => undefined);
              if (st?.header) byId.set(st.header.member_id, u);
            }),
          );
          const members = list.members.map((m: WireMember) => ({
            name: m.name || `(unstarted ${BigInt(m.ID).toString(16)})`,
            clientUrl: byId.get(m.ID) ?? m.clientURLs[0] ?? m.peerURLs[0] ?? '',
          }));
          members.sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true }));
          return { members, via: url };
        } catch (err) {
          let why = connectionError(err, url, this.o.etcd!);
          if (/Failed to connect|No connection established/.test(why)) {
            const transport = await probeTransport(url);
            if (transport) why = `${transport} (${why})`;
          }
          errors.set(url, why);
        }
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    throw new Error([...errors].map(([u, e]) => `${u}: ${e}`).join('; '));
  }

  async start(timeoutMs: number): Promise<boolean> {
    let ok = true;
    if (this.o.etcd) {
      this.steps.begin('etcd', this.membersValue.map((m) => m.clientUrl).join(', '));
      try {
        const { members, via } = await this.discover(Math.min(timeoutMs, 15_000));
        this.membersValue = members;
        this.steps.done('etcd', `${members.length} members (listed by ${via}): ${members.map((m) => `${m.name} ${m.clientUrl}`).join(', ')}`);
      } catch (err) {
        this.steps.fail('etcd', (err as Error).message);
        ok = false;
      }
    }
    if (this.o.kube) {
      this.steps.begin('kube', this.o.kube.context ?? '(current context)');
      try {
        const rest = await this.restClient();
        const v = await rest.request<{ gitVersion?: string }>('GET', '/version', { signal: AbortSignal.timeout(5_000) }).catch((err: unknown) => {
          throw new Error(kubeError(err, { server: this.apiServerUrl }));
        });
        this.steps.done('kube', `${this.apiServerUrl} answers, ${v.gitVersion ?? 'version unknown'}`);
      } catch (err) {
        this.steps.fail('kube', (err as Error).message);
        ok = false;
      }
    }
    return ok;
  }

  startupSteps(): StartupStep[] {
    return this.steps.list();
  }

  async dispose(): Promise<void> {
    for (const c of this.clients.values()) c.close();
    this.clients.clear();
    this.rest?.close();
  }

  process(): ControlledProcess | undefined {
    return undefined;
  }

  commandLine(): undefined {
    return undefined;
  }

  stopAll(): Promise<void> {
    return Promise.reject(new Error(notPossible('stopping the cluster', this)));
  }

  startAll(): void {
    throw new Error(notPossible('starting the cluster', this));
  }
}
