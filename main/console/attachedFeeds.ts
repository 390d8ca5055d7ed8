// The feeds of a cluster the console attached to through a kubeconfig: Watch
// events from the Kubernetes API (when the connection asks for them), the
// overview's nodes as the context's user, and the Admission log from the API
// server's audit log when a path to it was given — request traces exist only
// for Pilothouse's own API server. Each says in its status what it cannot
// show; none of them failing stops the others.

import type { EventSink, FeedStatus } from '../../preload/contract';
import type { AttachedCluster } from './attachedCluster';
import { AuditLogFeed } from './auditLogFeed';
import { KubeWatchFeed } from './kubeWatchFeed';
import { NodesFeed } from './nodesFeed';

export const NO_TRACES =
  "request traces exist only for Pilothouse's own API server; give the API server's audit log path to see its requests here";

export interface AttachedFeedsDeps {
  events: EventSink;
  /** A line for the console log. */
  note(message: string): void;
  /** Seq numbers shared with the etcd feed. */
  nextSeq(): number;
  onNodes(): void;
  onStatus(): void;
}

export class AttachedFeeds {
  kubeWatch: KubeWatchFeed | undefined;
  nodes: NodesFeed | undefined;
  audit: AuditLogFeed | undefined;
  /** Why the Kubernetes API feeds are not running (the kube step failed). */
  private kubeDown: string | undefined;

  constructor(
    private readonly cluster: AttachedCluster,
    private readonly deps: AttachedFeedsDeps,
  ) {}

  /** Starts what the connection allows; resolves once the watch feed's first lists are in. */
  async start(): Promise<void> {
    const { cluster, deps } = this;
    const auditLog = cluster.o.auditLog;
    if (auditLog) {
      this.audit = new AuditLogFeed({
        path: auditLog,
        events: deps.events,
        onProblem: (p) => {
          if (p) deps.note(`admission log: ${p}`);
          deps.onStatus();
        },
      });
      this.audit.start();
    }
    if (!cluster.o.kube) return;
    const step = cluster.startupSteps().find((s) => s.id === 'kube');
    if (step?.state !== 'done') {
      this.kubeDown = `the Kubernetes API is not reachable: ${step?.detail ?? 'not attached'}`;
      deps.onStatus();
      return;
    }
    const kc = cluster.kube()!;
    this.nodes = new NodesFeed(kc, deps.onNodes, (m) => deps.note(`nodes feed: ${m}`));
    void this.nodes.start().catch((err: Error) => deps.note(`nodes feed did not start: ${err.message}`));
    if (!cluster.watchSources.includes('kubernetes')) return;
    const ns = cluster.contextNamespace();
    this.kubeWatch = new KubeWatchFeed({
      rest: await cluster.restClient(),
      events: deps.events,
      ...(ns && { namespace: ns }),
      nextSeq: deps.nextSeq,
      onNote: (m) => deps.note(`watch feed: ${m}`),
      onStatus: deps.onStatus,
    });
    await this.kubeWatch.start();
    deps.onStatus();
  }

  watchStatus(): Pick<FeedStatus['watch'], 'resources' | 'notes'> {
    const st = this.kubeWatch?.status();
    const notes = [...(this.kubeDown && this.cluster.watchSources.includes('kubernetes') ? [this.kubeDown] : []), ...(st?.notes ?? [])];
    return { resources: st?.watching ?? [], notes };
  }

  admissionStatus(): FeedStatus['admission'] {
    if (!this.audit) return { source: 'none', notes: [NO_TRACES] };
    const p = this.audit.problem();
    return { source: 'audit-log', path: this.cluster.o.auditLog!, notes: p ? [p] : [] };
  }

  async dispose(): Promise<void> {
    this.audit?.dispose();
    await Promise.all([this.kubeWatch?.dispose(), this.nodes?.dispose()]);
  }
}
