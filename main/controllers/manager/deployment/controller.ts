// The Deployment controller (kube's pkg/controller/deployment): finds or
// creates the ReplicaSet for the current template (`<deploy>-<hash>`), moves
// replicas from old ReplicaSets to it by RollingUpdate or Recreate, follows
// replicas changes proportionally, keeps revisionHistoryLimit old ones and
// writes status. `kubectl rollout undo` copies an old template back into the
// deployment; the matching old ReplicaSet then becomes the new one.

import { RESOURCES, collectionPath, isAlreadyExists, isNotFound, objectKey, objectPath, type ControllerContext } from '../../../client/kube';
import { clone, isTerminal, runQueue } from '../common';
import { controllerRef, rfc3339 } from '../metav1';
import type { Deployment, Pod, ReplicaSet } from '../types';
import { controllerOf } from '../types';
import { computeHash } from './podTemplateHash';
import { activeOnly, desiredReplicasAnnotation, isRollingUpdate, maxSurge, newRSNewReplicas, setReplicasAnnotations } from './replicas';
import { POD_TEMPLATE_HASH, REVISION, byRevision, equalIgnoreHash, findNewReplicaSet, maxRevision, setDeploymentRevision, setNewReplicaSetAnnotations } from './revision';
import { planOldScaleDown, planScale } from './rolling';
import { REASON, calculateStatus, deploymentComplete, getCondition, hasProgressDeadline, newCondition, rolloutStatus, setCondition, statusEqual } from './status';

export function startDeploymentController(ctx: ControllerContext): void {
  const rest = ctx.clients.rest;
  const recorder = ctx.recorder('deployment-controller');
  const dInf = ctx.informers.informer<Deployment>(RESOURCES.deployments);
  const rsInf = ctx.informers.informer<ReplicaSet>(RESOURCES.replicasets);
  const podInf = ctx.informers.informer<Pod>(RESOURCES.pods);
  const queue = runQueue(ctx, 'deployment', sync);
  const now = (): string => rfc3339(ctx.clock.now());

  const ownerKey = (rs: ReplicaSet): string | undefined => {
    const ref = controllerOf(rs);
    if (ref?.kind !== 'Deployment') return undefined;
    const d = dInf.getByName(rs.metadata.namespace, ref.name);
    return d && d.metadata.uid === ref.uid ? objectKey(d) : undefined;
  };
  const enqueueRS = (rs: ReplicaSet): void => {
    const k = ownerKey(rs);
    if (k) queue.add(k);
  };
  dInf.addEventHandler({ add: (d) => queue.add(objectKey(d)), update: (_o, d) => queue.add(objectKey(d)), delete: (d) => queue.add(objectKey(d)) });
  rsInf.addEventHandler({ add: enqueueRS, update: (o, n) => { enqueueRS(n); if (controllerOf(o)?.uid !== controllerOf(n)?.uid) enqueueRS(o); }, delete: enqueueRS });
  // Recreate waits for old pods to be gone.
  podInf.addEventHandler({
    delete: (p) => {
      const ref = controllerOf(p);
      if (ref?.kind !== 'ReplicaSet') return;
      const rs = rsInf.getByName(p.metadata.namespace, ref.name);
      if (rs) enqueueRS(rs);
    },
  });

  async function sync(key: string): Promise<void> {
    const cached = dInf.get(key);
    if (!cached) return;
    const d = clone(cached);
    const rsList = rsInf.byIndex('namespace', d.metadata.namespace!).filter((rs) => controllerOf(rs)?.uid === d.metadata.uid);
    if (d.metadata.deletionTimestamp) return syncStatusOnly(d, rsList);
    await checkPausedConditions(d);
    if (d.spec.paused) return syncScale(d, rsList);
    if (isScalingEvent(d, rsList)) return syncScale(d, rsList);
    if (isRollingUpdate(d)) return rolloutRolling(d, rsList);
    return rolloutRecreate(d, rsList);
  }

  /** getAllReplicaSetsAndSyncRevision: the new ReplicaSet (created if asked) and the others. */
  async function allReplicaSets(d: Deployment, rsList: ReplicaSet[], create: boolean): Promise<{ newRS: ReplicaSet | undefined; oldRSs: ReplicaSet[] }> {
    const found = findNewReplicaSet(d, rsList);
    const oldRSs = rsList.filter((rs) => rs !== found);
    const newRS = await getNewReplicaSet(d, found, oldRSs, create);
    return { newRS, oldRSs };
  }

  async function getNewReplicaSet(d: Deployment, existing: ReplicaSet | undefined, oldRSs: ReplicaSet[], create: boolean): Promise<ReplicaSet | undefined> {
    const newRevision = maxRevision(oldRSs) + 1;
    const ns = d.metadata.namespace!;
    if (existing) {
      const rs = clone(existing);
      const annotationsChanged = setNewReplicaSetAnnotations(d, rs, newRevision, true);
      const minReadyChanged = (rs.spec.minReadySeconds ?? 0) !== (d.spec.minReadySeconds ?? 0);
      let current = existing;
      if (annotationsChanged || minReadyChanged) {
        rs.spec.minReadySeconds = d.spec.minReadySeconds;
        current = await rest.replace<ReplicaSet>(objectPath(RESOURCES.replicasets, ns, rs.metadata.name!), rs);
      }
      let needsUpdate = setDeploymentRevision(d, current.metadata.annotations?.[REVISION] ?? '');
      if (hasProgressDeadline(d) && !getCondition(d.status, 'Progressing')) {
        d.status ??= {};
        setCondition(d.status, newCondition('Progressing', 'True', REASON.foundNewRS, `Found new replica set "${current.metadata.name}"`, now()));
        needsUpdate = true;
      }
      if (needsUpdate) await writeStatus(d, d.status ?? {});
      return current;
    }
    if (!create) return undefined;

    const hash = computeHash(d.spec.template, d.status?.collisionCount);
    const template = clone(d.spec.template);
    template.metadata = { ...(template.metadata ?? {}), labels: { ...(template.metadata?.labels ?? {}), [POD_TEMPLATE_HASH]: hash } };
    const selector = clone(d.spec.selector);
    selector.matchLabels = { ...(selector.matchLabels ?? {}), [POD_TEMPLATE_HASH]: hash };
    const rs: ReplicaSet = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: `${d.metadata.name}-${hash}`, namespace: ns, ownerReferences: [controllerRef(d, 'apps/v1', 'Deployment')], labels: template.metadata.labels },
      spec: { replicas: 0, minReadySeconds: d.spec.minReadySeconds, selector, template },
    };
    const count = newRSNewReplicas(d, [...oldRSs, rs], rs);
    rs.spec.replicas = count;
    setNewReplicaSetAnnotations(d, rs, newRevision, false);
    let created: ReplicaSet;
    let alreadyExisted = false;
    try {
      created = await rest.create<ReplicaSet>(collectionPath(RESOURCES.replicasets, ns), rs);
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
      const other = await rest.get<ReplicaSet>(objectPath(RESOURCES.replicasets, ns, rs.metadata.name!));
      if (controllerOf(other)?.uid !== d.metadata.uid || !equalIgnoreHash(other.spec.template, d.spec.template)) {
        // A hash collision: bump collisionCount so the next hash differs.
        d.status ??= {};
        d.status.collisionCount = (d.status.collisionCount ?? 0) + 1;
        await writeStatus(d, d.status);
        throw e;
      }
      created = other;
      alreadyExisted = true;
    }
    if (!alreadyExisted && count > 0) recorder.event(d, 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${created.metadata.name} from 0 to ${count}`);
    let needsUpdate = setDeploymentRevision(d, String(newRevision));
    if (!alreadyExisted && hasProgressDeadline(d)) {
      d.status ??= {};
      setCondition(d.status, newCondition('Progressing', 'True', REASON.newReplicaSet, `Created new replica set "${created.metadata.name}"`, now()));
      needsUpdate = true;
    }
    if (needsUpdate) await writeStatus(d, d.status ?? {});
    return created;
  }

  /** PUT deployments/<n>/status; the annotations travel too (the status strategy keeps only spec and labels). */
  async function writeStatus(d: Deployment, status: Deployment['status']): Promise<void> {
    const updated = await rest.replace<Deployment>(objectPath(RESOURCES.deployments, d.metadata.namespace, d.metadata.name!, 'status'), { ...d, status });
    d.metadata.resourceVersion = updated.metadata.resourceVersion;
    d.status = updated.status;
  }

  /** scaleReplicaSetAndRecordEvent: size and the replicas annotations together; an event when the size moves. */
  async function scaleRS(rs: ReplicaSet, replicas: number, d: Deployment, operation?: string): Promise<ReplicaSet> {
    const cur = rs.spec.replicas ?? 0;
    const next = clone(rs);
    const annotationsChanged = setReplicasAnnotations(next, d.spec.replicas ?? 0, (d.spec.replicas ?? 0) + maxSurge(d));
    if (cur === replicas && !annotationsChanged) return rs;
    next.spec.replicas = replicas;
    const updated = await rest.replace<ReplicaSet>(objectPath(RESOURCES.replicasets, rs.metadata.namespace, rs.metadata.name!), next);
    if (cur !== replicas) {
      const op = operation || (cur < replicas ? 'up' : 'down');
      recorder.event(d, 'Normal', 'ScalingReplicaSet', `Scaled ${op} replica set ${rs.metadata.name} from ${cur} to ${replicas}`);
    }
    return updated;
  }

  function isScalingEvent(d: Deployment, rsList: ReplicaSet[]): boolean {
    for (const rs of activeOnly(rsList)) {
      const desired = desiredReplicasAnnotation(rs);
      if (desired !== undefined && desired !== (d.spec.replicas ?? 0)) return true;
    }
    return false;
  }

  async function checkPausedConditions(d: Deployment): Promise<void> {
    if (!hasProgressDeadline(d)) return;
    const cond = getCondition(d.status, 'Progressing');
    if (cond?.reason === REASON.timedOut) return;
    const paused = cond?.reason === REASON.paused;
    d.status ??= {};
    if (d.spec.paused && !paused) setCondition(d.status, newCondition('Progressing', 'Unknown', REASON.paused, 'Deployment is paused', now()));
    else if (!d.spec.paused && paused) setCondition(d.status, newCondition('Progressing', 'Unknown', REASON.resumed, 'Deployment is resumed', now()));
    else return;
    await writeStatus(d, d.status);
  }

  async function syncScale(d: Deployment, rsList: ReplicaSet[]): Promise<void> {
    const { newRS, oldRSs } = await allReplicaSets(d, rsList, false);
    const { steps, operation } = planScale(d, newRS, oldRSs);
    const updated = new Map<string, ReplicaSet>();
    for (const s of steps) updated.set(s.rs.metadata.name!, await scaleRS(s.rs, s.replicas, d, operation));
    const fresh = (rs: ReplicaSet | undefined): ReplicaSet | undefined => (rs ? (updated.get(rs.metadata.name!) ?? rs) : undefined);
    if (d.spec.paused) await cleanup(d, oldRSs.map((rs) => fresh(rs)!));
    const status = calculateStatus([...oldRSs.map(fresh), fresh(newRS)], fresh(newRS), d, now());
    if (!statusEqual(d.status, status)) await writeStatus(d, status);
  }

  async function syncStatusOnly(d: Deployment, rsList: ReplicaSet[]): Promise<void> {
    const { newRS, oldRSs } = await allReplicaSets(d, rsList, false);
    const status = calculateStatus([...oldRSs, newRS], newRS, d, now());
    if (!statusEqual(d.status, status)) await writeStatus(d, status);
  }

  async function syncRolloutStatus(d: Deployment, allRSs: (ReplicaSet | undefined)[], newRS: ReplicaSet | undefined): Promise<void> {
    const status = rolloutStatus(allRSs, newRS, d, ctx.clock.now());
    if (!statusEqual(d.status, status)) {
      await writeStatus(d, status);
      return;
    }
    // Not complete yet: look again for the progress deadline.
    if (hasProgressDeadline(d) && !deploymentComplete(d, status) && getCondition(status, 'Progressing')?.reason !== REASON.timedOut) {
      queue.addAfter(objectKey(d), (d.spec.progressDeadlineSeconds ?? 600) * 1000 + 1000);
    }
  }

  async function rolloutRolling(d: Deployment, rsList: ReplicaSet[]): Promise<void> {
    const { newRS: found, oldRSs } = await allReplicaSets(d, rsList, true);
    let newRS = found!;
    const all = (): ReplicaSet[] => [...oldRSs, newRS];
    // reconcileNewReplicaSet
    const want = d.spec.replicas ?? 0;
    const cur = newRS.spec.replicas ?? 0;
    if (cur !== want) {
      const target = cur > want ? want : newRSNewReplicas(d, all(), newRS);
      if (target !== cur) {
        newRS = await scaleRS(newRS, target, d);
        return syncRolloutStatus(d, all(), newRS);
      }
    }
    // reconcileOldReplicaSets
    const steps = planOldScaleDown(d, activeOnly(oldRSs), newRS);
    if (steps.length > 0) {
      for (const s of steps) {
        const i = oldRSs.findIndex((rs) => rs.metadata.name === s.rs.metadata.name);
        oldRSs[i] = await scaleRS(i >= 0 ? oldRSs[i] : s.rs, s.replicas, d);
      }
      return syncRolloutStatus(d, all(), newRS);
    }
    if (deploymentComplete(d, d.status ?? {})) await cleanup(d, oldRSs);
    return syncRolloutStatus(d, all(), newRS);
  }

  async function rolloutRecreate(d: Deployment, rsList: ReplicaSet[]): Promise<void> {
    let { newRS, oldRSs } = await allReplicaSets(d, rsList, false);
    let scaledDown = false;
    for (const [i, rs] of oldRSs.entries()) {
      if ((rs.spec.replicas ?? 0) === 0) continue;
      oldRSs[i] = await scaleRS(rs, 0, d);
      scaledDown = true;
    }
    if (scaledDown || oldPodsRunning(newRS, oldRSs)) return syncRolloutStatus(d, [...oldRSs, newRS], newRS);
    if (!newRS) ({ newRS, oldRSs } = await allReplicaSets(d, rsList, true));
    if (newRS && (newRS.spec.replicas ?? 0) !== (d.spec.replicas ?? 0)) newRS = await scaleRS(newRS, d.spec.replicas ?? 0, d);
    if (deploymentComplete(d, d.status ?? {})) await cleanup(d, oldRSs);
    return syncRolloutStatus(d, [...oldRSs, newRS], newRS);
  }

  /** oldPodsRunning: Recreate starts new pods only once no old pod is left that could still run. */
  function oldPodsRunning(newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[]): boolean {
    if (oldRSs.some((rs) => (rs.status?.replicas ?? 0) > 0)) return true;
    const oldUids = new Set(oldRSs.map((rs) => rs.metadata.uid));
    return [...oldUids].some((uid) => podInf.byIndex('ownerUid', uid ?? '').some((p) => controllerOf(p)?.uid === uid && !isTerminal(p) && newRS?.metadata.uid !== uid));
  }

  /** cleanupDeployment: delete the oldest scaled-down ReplicaSets beyond revisionHistoryLimit. */
  async function cleanup(d: Deployment, oldRSs: ReplicaSet[]): Promise<void> {
    const limit = d.spec.revisionHistoryLimit;
    if (limit === undefined || limit === null) return;
    const cleanable = oldRSs.filter((rs) => !rs.metadata.deletionTimestamp).sort(byRevision);
    const diff = cleanable.length - limit;
    for (let i = 0; i < diff; i++) {
      const rs = cleanable[i];
      if ((rs.status?.replicas ?? 0) !== 0 || (rs.spec.replicas ?? 0) !== 0 || (rs.metadata.generation ?? 0) > (rs.status?.observedGeneration ?? 0)) continue;
      try {
        await rest.delete(objectPath(RESOURCES.replicasets, rs.metadata.namespace, rs.metadata.name!), { preconditions: { uid: rs.metadata.uid } });
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
  }
}
