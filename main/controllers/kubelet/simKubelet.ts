// One simulated kubelet. It registers its Node, renews its Lease in
// kube-node-lease, posts NodeStatus when it changed (or every 5 minutes), and
// watches the pods bound to it (spec.nodeName=<node>), walking each through
// sandbox, image pull and container start with the kubelet's events and
// status patches; a pod with a deletionTimestamp has its containers stopped
// within the grace period and is then deleted with gracePeriodSeconds=0, as
// the kubelet's status manager does. Everything goes through the API server
// as system:node:<name> (its own clients) — and nothing at all while the
// node is paused or stopped (see control.ts).

import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { ApiError, isAlreadyExists, isConflict, isNotFound, type KubeClients } from '../../client/kube/rest';
import { newEventRecorder, type EventRecorder } from '../../client/kube/eventRecorder';
import { objectKey, splitKey, type KubeObject, type SharedIndexInformer } from '../../client/kube/informer';
import { SharedInformerFactory } from '../../client/kube/informerFactory';
import { RateLimitingQueue, runWorkers } from '../../client/kube/workqueue';
import { collectionPath, objectPath, RESOURCES } from '../../client/kube/resources';
import { sleep, type Clock } from '../../client/kube/clock';
import { parseNodeState, registerNode, STATE_ANNOTATION, type NodeState } from './control';
import { jittered } from './delays';
import { effectivePullPolicy, imageSize } from './images';
import { goDuration } from './goDuration';
import { healthyConditions, nodeLease, registrationNode, type NodeCapacity, NODE_LEASE_NAMESPACE } from './nodeObject';
import { nodeInternalIp, PodIpAllocator } from './podIps';
import { isRunningAndReady, rfc3339, runningStatus, startingStatus } from './podStatus';

export interface SimKubeletConfig {
  name: string;
  /** 1-based; picks the pod CIDR and the node address. */
  index: number;
  capacity: NodeCapacity;
  podStartDelayMs: number;
  podStartJitterMs: number;
  leaseRenewIntervalMs: number;
  leaseDurationSeconds: number;
  statusUpdateFrequencyMs: number;
  /** kubelet's nodeStatusReportFrequency: post unchanged status this often. */
  statusReportFrequencyMs: number;
  clock: Clock;
  random: () => number;
  log(message: string): void;
}

const asPod = (o: KubeObject): V1Pod => o as unknown as V1Pod;

export class SimKubelet {
  private nodeState: NodeState = 'running';
  private readonly ips: PodIpAllocator;
  private readonly hostIP: string;
  private readonly starting = new Map<string, AbortController>();
  private readonly terminating = new Set<string>();
  /** Images this node has pulled (IfNotPresent pulls once per node). */
  private readonly images = new Set<string>();
  private lastStatusPost = 0;
  private nodeUid: string | undefined;
  private registered = false;
  private recorder: EventRecorder;
  private pods!: SharedIndexInformer<KubeObject>;
  private node!: SharedIndexInformer<KubeObject>;
  private readonly queue: RateLimitingQueue<string>;

  constructor(
    private readonly cfg: SimKubeletConfig,
    private readonly clients: KubeClients,
    private readonly signal: AbortSignal,
  ) {
    this.ips = new PodIpAllocator(cfg.index);
    this.hostIP = nodeInternalIp(cfg.index);
    this.recorder = newEventRecorder(clients.rest, { component: 'kubelet', host: cfg.name, clock: cfg.clock, onError: (e) => cfg.log(`event: ${String(e)}`) });
    this.queue = new RateLimitingQueue<string>({ clock: cfg.clock, name: `kubelet-${cfg.name}` });
  }

  get name(): string {
    return this.cfg.name;
  }

  state(): NodeState {
    return this.nodeState;
  }

  setState(s: NodeState): void {
    if (s === this.nodeState) return;
    const was = this.nodeState;
    this.nodeState = s;
    this.cfg.log(`node ${this.cfg.name}: ${was} → ${s}`);
    if (s !== 'running') return;
    if (was === 'stopped') this.registered = false;
    // Back: heartbeat at once and look at every pod again.
    void this.heartbeat();
    for (const k of this.pods.keys()) this.queue.add(k);
  }

  private get running(): boolean {
    return this.nodeState === 'running' && !this.signal.aborted;
  }

  /** Starts everything; resolves once the node is registered and the pod watch has synced. */
  async start(): Promise<void> {
    const unregister = registerNode(this);
    this.signal.addEventListener('abort', () => {
      unregister();
      this.queue.shutDown();
      for (const c of this.starting.values()) c.abort();
    }, { once: true });
    const factory = new SharedInformerFactory(this.clients.rest, { clock: this.cfg.clock, onError: (r, e) => this.cfg.log(`${this.cfg.name} ${r} watch: ${e.message}`) });
    this.pods = factory.informer(RESOURCES.pods, { fieldSelector: `spec.nodeName=${this.cfg.name}` });
    this.node = factory.informer(RESOURCES.nodes, { fieldSelector: `metadata.name=${this.cfg.name}` });
    this.pods.addEventHandler({
      add: (p) => this.queue.add(objectKey(p)),
      update: (_o, p) => this.queue.add(objectKey(p)),
      delete: (p) => this.queue.add(objectKey(p)),
    });
    this.node.addEventHandler({ add: (n) => this.onNode(n), update: (_o, n) => this.onNode(n) });
    factory.start(this.signal);
    await this.registerUntilDone();
    if (!(await factory.waitForCacheSync(this.signal))) return;
    void runWorkers(this.queue, 4, (key) => this.syncPod(key), (key, err) => this.cfg.log(`${this.cfg.name} pod ${key}: ${String(err)}`));
    void this.loop(this.cfg.leaseRenewIntervalMs, () => this.renewLease());
    void this.loop(this.cfg.statusUpdateFrequencyMs, () => this.heartbeat());
  }

  private onNode(n: KubeObject): void {
    this.nodeUid = n.metadata?.uid;
    const annotations = (n.metadata as { annotations?: Record<string, string> } | undefined)?.annotations;
    const want = parseNodeState(annotations?.[STATE_ANNOTATION]);
    if (want) this.setState(want);
    // The node lifecycle controller set Ready=Unknown while we were away, or someone changed our conditions: report again.
    const ready = (n as unknown as V1Node).status?.conditions?.find((c) => c.type === 'Ready');
    if (this.running && this.registered && ready?.status !== 'True') void this.heartbeat(true);
  }

  private async loop(everyMs: number, fn: () => Promise<void>): Promise<void> {
    while (!this.signal.aborted) {
      await sleep(this.cfg.clock, everyMs, this.signal);
      if (this.signal.aborted) return;
      if (this.running) await fn().catch((e: unknown) => this.cfg.log(`${this.cfg.name}: ${String(e)}`));
    }
  }

  private async registerUntilDone(): Promise<void> {
    for (let attempt = 0; attempt < 1_000_000 && !this.signal.aborted; attempt++) {
      try {
        if (this.running) {
          await this.register();
          await this.renewLease();
          return;
        }
      } catch (e) {
        this.cfg.log(`${this.cfg.name} register: ${String(e)}`);
      }
      await sleep(this.cfg.clock, Math.min(7_000, 200 * 2 ** Math.min(attempt, 5)), this.signal);
    }
  }

  /** Creates the Node, or (it exists: a restart) refreshes its status. */
  private async register(): Promise<void> {
    const now = rfc3339(this.cfg.clock.now());
    const body = registrationNode(this.cfg.name, this.cfg.index, this.cfg.capacity, now);
    try {
      const created = await this.clients.rest.create<KubeObject>(collectionPath(RESOURCES.nodes), body);
      this.nodeUid = created.metadata?.uid;
      this.cfg.log(`node ${this.cfg.name} registered`);
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
      const status = body.status as unknown as Record<string, unknown>;
      const got = await this.clients.rest.patch<KubeObject>(objectPath(RESOURCES.nodes, undefined, this.cfg.name, 'status'), 'strategic', { status });
      this.nodeUid = got.metadata?.uid;
    }
    this.registered = true;
    this.lastStatusPost = this.cfg.clock.now();
  }

  /** NodeStatus: posted when Ready is not what we report, or every statusReportFrequency. */
  private async heartbeat(force = false): Promise<void> {
    if (!this.running) return;
    if (!this.registered) {
      await this.register();
      return;
    }
    const node = this.node.get(this.cfg.name) as unknown as V1Node | undefined;
    const ready = node?.status?.conditions?.find((c) => c.type === 'Ready');
    const due = this.cfg.clock.now() - this.lastStatusPost >= this.cfg.statusReportFrequencyMs;
    if (!force && !due && ready?.status === 'True') return;
    const now = rfc3339(this.cfg.clock.now());
    await this.clients.rest.patch(objectPath(RESOURCES.nodes, undefined, this.cfg.name, 'status'), 'strategic', { status: { conditions: healthyConditions(now, node?.status?.conditions ?? []) } });
    this.lastStatusPost = this.cfg.clock.now();
  }

  private async renewLease(): Promise<void> {
    if (!this.running) return;
    const path = objectPath(RESOURCES.leases, NODE_LEASE_NAMESPACE, this.cfg.name);
    const want = nodeLease(this.cfg.name, this.nodeUid, this.cfg.clock.now(), this.cfg.leaseDurationSeconds);
    try {
      const cur = await this.clients.rest.get<KubeObject>(path);
      await this.clients.rest.replace(path, { ...want, metadata: { ...(want['metadata'] as object), resourceVersion: cur.metadata?.resourceVersion } });
    } catch (e) {
      if (!isNotFound(e)) throw e;
      await this.clients.rest.create(collectionPath(RESOURCES.leases, NODE_LEASE_NAMESPACE), want).catch((err: unknown) => {
        if (!isAlreadyExists(err)) throw err;
      });
    }
  }

  private async syncPod(key: string): Promise<void> {
    if (!this.running) return;
    const obj = this.pods.get(key);
    if (!obj) {
      this.starting.get(key)?.abort();
      this.starting.delete(key);
      this.terminating.delete(key);
      return;
    }
    const pod = asPod(obj);
    const uid = pod.metadata?.uid ?? '';
    if (pod.status?.podIP) this.ips.adopt(uid, pod.status.podIP);
    if (pod.metadata?.deletionTimestamp) {
      if (this.terminating.has(key)) return;
      this.terminating.add(key);
      this.starting.get(key)?.abort();
      this.starting.delete(key);
      void this.terminate(key, pod).finally(() => this.terminating.delete(key));
      return;
    }
    if (isRunningAndReady(pod) || this.starting.has(key)) return;
    const ctl = new AbortController();
    this.starting.set(key, ctl);
    void this.startPod(key, ctl.signal)
      .catch((e: unknown) => {
        if (!ctl.signal.aborted) {
          this.cfg.log(`${this.cfg.name} start ${key}: ${String(e)}`);
          this.queue.addRateLimited(key);
        }
      })
      .finally(() => {
        if (this.starting.get(key) === ctl) this.starting.delete(key);
      });
  }

  private step(signal: AbortSignal): Promise<void> {
    return sleep(this.cfg.clock, jittered(this.cfg.podStartDelayMs, this.cfg.podStartJitterMs, this.cfg.random), signal);
  }

  /** The latest cached pod, or undefined when it went away or we must stop. */
  private current(key: string, signal: AbortSignal): V1Pod | undefined {
    if (signal.aborted || !this.running) return undefined;
    const o = this.pods.get(key);
    return o && !o.metadata?.deletionTimestamp ? asPod(o) : undefined;
  }

  private async patchStatus(pod: V1Pod, status: Record<string, unknown>): Promise<void> {
    const { namespace, name } = { namespace: pod.metadata!.namespace!, name: pod.metadata!.name! };
    await this.clients.rest.patch(objectPath(RESOURCES.pods, namespace, name, 'status'), 'strategic', { status });
  }

  private containerRef(pod: V1Pod, container: string, init: boolean): Record<string, string | undefined> {
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      namespace: pod.metadata?.namespace,
      name: pod.metadata?.name,
      uid: pod.metadata?.uid,
      resourceVersion: pod.metadata?.resourceVersion,
      fieldPath: `spec.${init ? 'initContainers' : 'containers'}{${container}}`,
    };
  }

  private async startPod(key: string, signal: AbortSignal): Promise<void> {
    let pod = this.current(key, signal);
    if (!pod) return;
    const uid = pod.metadata?.uid ?? '';
    const podIP = this.ips.assign(uid);
    if (!podIP) throw new Error(`no free pod IP on ${this.cfg.name}`);
    const addr = { hostIP: this.hostIP, podIP };
    // Sandbox.
    await this.step(signal);
    if (!(pod = this.current(key, signal))) return;
    await this.patchStatus(pod, startingStatus(pod, addr, rfc3339(this.cfg.clock.now())));
    const containers = [
      ...(pod.spec?.initContainers ?? []).map((c) => ({ c, init: true })),
      ...(pod.spec?.containers ?? []).map((c) => ({ c, init: false })),
    ];
    for (const { c, init } of containers) {
      if (!(pod = this.current(key, signal))) return;
      const ref = this.containerRef(pod, c.name, init) as never;
      const image = c.image ?? '';
      const policy = effectivePullPolicy(image, c.imagePullPolicy);
      if (policy === 'Always' || (policy === 'IfNotPresent' && !this.images.has(image))) {
        this.recorder.event(ref, 'Normal', 'Pulling', `Pulling image "${image}"`);
        const t0 = this.cfg.clock.now();
        await this.step(signal);
        if (signal.aborted) return;
        const took = goDuration(this.cfg.clock.now() - t0);
        this.images.add(image);
        this.recorder.event(ref, 'Normal', 'Pulled', `Successfully pulled image "${image}" in ${took} (${took} including waiting). Image size: ${imageSize(image)} bytes.`);
      } else {
        this.recorder.event(ref, 'Normal', 'Pulled', `Container image "${image}" already present on machine`);
      }
      this.recorder.event(ref, 'Normal', 'Created', `Created container: ${c.name}`);
      this.recorder.event(ref, 'Normal', 'Started', `Started container ${c.name}`);
    }
    await this.step(signal);
    if (!(pod = this.current(key, signal))) return;
    await this.patchStatus(pod, runningStatus(pod, addr, rfc3339(this.cfg.clock.now())));
  }

  /** Stops the containers (Killing), waits out at most the grace period, then deletes with grace 0. */
  private async terminate(key: string, pod: V1Pod): Promise<void> {
    const graceS = pod.metadata?.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30;
    const started = (pod.status?.containerStatuses ?? []).filter((s) => s.state?.running || s.state?.waiting);
    for (const s of started) this.recorder.event(this.containerRef(pod, s.name, false) as never, 'Normal', 'Killing', `Stopping container ${s.name}`);
    // Simulated containers exit on SIGTERM after one step, never later than the grace period.
    const stopMs = Math.min(graceS * 1000, jittered(this.cfg.podStartDelayMs, this.cfg.podStartJitterMs, this.cfg.random));
    await sleep(this.cfg.clock, stopMs, this.signal);
    if (!this.running) return; // Paused or stopped mid-way: finish when back (syncPod runs again).
    const { namespace, name } = splitKey(key);
    try {
      await this.clients.rest.delete(objectPath(RESOURCES.pods, namespace, name), {
        apiVersion: 'v1',
        kind: 'DeleteOptions',
        gracePeriodSeconds: 0,
        preconditions: { uid: pod.metadata?.uid },
      });
    } catch (e) {
      if (!isNotFound(e) && !isConflict(e) && !(e instanceof ApiError && e.status === 409)) throw e;
    }
    this.ips.release(pod.metadata?.uid ?? '');
  }
}
