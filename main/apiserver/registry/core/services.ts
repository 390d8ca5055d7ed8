// core/v1 services: kube's service REST (pkg/registry/core/service/storage)
// — defaults, cluster IP and node port allocation in beginCreate/beginUpdate
// (committed or reverted by the caller's finish), release on delete, the
// single-stack IPv4 family fields, and values kept from the stored object
// when an update omits them (patchAllocatedValues).

import type { KObject } from '../../../kube/object';
import { GoLiteral, StatusError, internalError, invalid as invalidStatus } from '../../api/status';
import { invalid } from '../../api/validation/field';
import { nameIsDNS1035Label } from '../../api/validation/names';
import { AllocationError } from '../allocator/rangeAllocator';
import { parseIPv4 } from '../allocator/ranges';
import { type Rec, arr, isRec, num, rec, setDefault, str } from '../common/obj';
import { ALL_VERBS, STATUS_VERBS, metaFields, simpleStrategy, statusStrategy } from '../common/define';
import type { FinishFunc, ResourceDef, ServiceAllocators, StrategyContext } from '../rest/resourceDef';
import { serviceTable } from '../tables/core';
import { clusterIPsOf, isHeadless, needsNodePorts, specOf, validateService, validateServiceUpdate } from './serviceValidation';

export function defaultService(obj: KObject): void {
  const spec = rec(obj as Rec, 'spec');
  setDefault(spec, 'sessionAffinity', 'None');
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP') {
    const cfg = isRec(spec.sessionAffinityConfig) ? (spec.sessionAffinityConfig as Rec) : undefined;
    const cip = cfg && isRec(cfg.clientIP) ? (cfg.clientIP as Rec) : undefined;
    if (!cip || typeof cip.timeoutSeconds !== 'number') spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
  }
  setDefault(spec, 'type', 'ClusterIP');
  for (const p of arr(spec, 'ports')) {
    setDefault(p, 'protocol', 'TCP');
    if (p.targetPort === undefined || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
  }
  const type = str(spec, 'type');
  const externallyAccessible = type === 'LoadBalancer' || type === 'NodePort' || (type === 'ClusterIP' && Array.isArray(spec.externalIPs) && spec.externalIPs.length > 0);
  if (externallyAccessible) setDefault(spec, 'externalTrafficPolicy', 'Cluster');
  if (spec.internalTrafficPolicy === undefined && (type === 'NodePort' || type === 'LoadBalancer' || type === 'ClusterIP')) spec.internalTrafficPolicy = 'Cluster';
  if (type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts === undefined) spec.allocateLoadBalancerNodePorts = true;
}

function allocators(ctx: StrategyContext): ServiceAllocators {
  if (!ctx.allocators) throw internalError(new Error('service allocators are not configured'));
  return ctx.allocators;
}

/** The single-stack IPv4 family fields initIPFamilyFields fills on this cluster. */
function initFamilies(spec: Rec): void {
  if (str(spec, 'type') === 'ExternalName') {
    delete spec.ipFamilies;
    delete spec.ipFamilyPolicy;
    return;
  }
  if (spec.ipFamilyPolicy === undefined) spec.ipFamilyPolicy = 'SingleStack';
  if (!Array.isArray(spec.ipFamilies) || spec.ipFamilies.length === 0) spec.ipFamilies = ['IPv4'];
}

/** A transaction of allocations: what to release on revert, what to release on commit. */
class Txn {
  readonly allocated: (() => Promise<void>)[] = [];
  readonly releaseOnCommit: (() => Promise<void>)[] = [];
  finish(): FinishFunc {
    let done = false;
    return async (success) => {
      if (done) return;
      done = true;
      for (const f of success ? this.releaseOnCommit : this.allocated) await f().catch(() => undefined);
    };
  }
  async revert(): Promise<void> {
    await this.finish()(false);
  }
}

async function allocClusterIP(svc: KObject, spec: Rec, a: ServiceAllocators, txn: Txn, dryRun: boolean): Promise<void> {
  if (str(spec, 'type') === 'ExternalName') return;
  const requested = str(spec, 'clusterIP') || clusterIPsOf(spec)[0] || '';
  if (requested === 'None') {
    spec.clusterIP = 'None';
    spec.clusterIPs = ['None'];
    return;
  }
  if (requested) {
    if (parseIPv4(requested) === undefined) return; // validation reports it
    if (dryRun) {
      if (await a.clusterIPs.has(requested)) throw allocationInvalid(svc, spec, requested, 'provided IP is already allocated');
    } else {
      try {
        await a.clusterIPs.allocate(requested);
      } catch (e) {
        if (e instanceof AllocationError) throw allocationInvalid(svc, spec, requested, e.message);
        throw e;
      }
      txn.allocated.push(() => a.clusterIPs.release(requested));
    }
    spec.clusterIP = requested;
    spec.clusterIPs = [requested];
    return;
  }
  if (dryRun) {
    // kube's dry-run allocator still answers with a free address.
    const preview = await a.clusterIPs.previewNext?.().catch(() => undefined);
    if (preview !== undefined) {
      spec.clusterIP = String(preview);
      spec.clusterIPs = [String(preview)];
    }
    return;
  }
  let ip: string;
  try {
    ip = String(await a.clusterIPs.allocateNext());
  } catch (e) {
    throw internalError(new Error(`failed to allocate a serviceIP: ${(e as Error).message}`));
  }
  txn.allocated.push(() => a.clusterIPs.release(ip));
  spec.clusterIP = ip;
  spec.clusterIPs = [ip];
}

function allocationInvalid(svc: KObject, spec: Rec, ip: string, why: string): StatusError {
  const ips = clusterIPsOf(spec).length ? clusterIPsOf(spec) : [ip];
  return invalidStatus({ group: '', kind: 'Service' }, svc.metadata.name ?? '', [
    invalid('spec.clusterIPs', new GoLiteral(`[]string{${ips.map((i) => JSON.stringify(i)).join(', ')}}`), `failed to allocate IP ${ip}: ${why}`),
  ]);
}

async function allocNodePorts(svc: KObject, spec: Rec, a: ServiceAllocators, txn: Txn, dryRun: boolean, keep: Set<number>): Promise<void> {
  if (!needsNodePorts(spec)) return;
  if (str(spec, 'type') === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts === false) return;
  const ports = arr(spec, 'ports');
  const taken = new Map<number, number>(); // nodePort → first index using it in this object
  for (const [i, p] of ports.entries()) {
    const np = num(p, 'nodePort') ?? 0;
    if (np === 0) continue;
    if (keep.has(np) || taken.has(np)) {
      taken.set(np, i);
      continue;
    }
    if (!dryRun) {
      try {
        await a.nodePorts.allocate(np);
      } catch (e) {
        if (e instanceof AllocationError) throw invalidStatus({ group: '', kind: 'Service' }, svc.metadata.name ?? '', [invalid(`spec.ports[${i}].nodePort`, np, e.message)]);
        throw e;
      }
      txn.allocated.push(() => a.nodePorts.release(np));
    }
    taken.set(np, i);
  }
  for (const p of ports) {
    if ((num(p, 'nodePort') ?? 0) !== 0) continue;
    if (dryRun) {
      const preview = await a.nodePorts.previewNext?.().catch(() => undefined);
      if (preview !== undefined) p.nodePort = Number(preview);
      continue;
    }
    let np: number;
    try {
      np = Number(await a.nodePorts.allocateNext());
    } catch (e) {
      throw internalError(new Error(`failed to allocate a nodePort: ${(e as Error).message}`));
    }
    txn.allocated.push(() => a.nodePorts.release(np));
    p.nodePort = np;
  }
}

const nodePortsOf = (spec: Rec): number[] => arr(spec, 'ports').map((p) => num(p, 'nodePort') ?? 0).filter((n) => n > 0);

/** patchAllocatedValues: an update that omits the cluster IP or node ports keeps the stored ones. */
function patchAllocatedValues(spec: Rec, oldSpec: Rec): void {
  const type = str(spec, 'type');
  if (type !== 'ExternalName' && str(oldSpec, 'type') !== 'ExternalName') {
    if (!str(spec, 'clusterIP') && str(oldSpec, 'clusterIP')) spec.clusterIP = oldSpec.clusterIP;
    if (clusterIPsOf(spec).length === 0 && clusterIPsOf(oldSpec).length) spec.clusterIPs = [...clusterIPsOf(oldSpec)];
    // clusterIP changed alone: clusterIPs follows (normalizeClusterIPs)
    if (str(spec, 'clusterIP') && clusterIPsOf(spec)[0] !== spec.clusterIP && JSON.stringify(clusterIPsOf(spec)) === JSON.stringify(clusterIPsOf(oldSpec))) spec.clusterIPs = [spec.clusterIP];
  }
  if (needsNodePorts(spec) && needsNodePorts(oldSpec)) {
    const oldByPort = new Map(arr(oldSpec, 'ports').map((p) => [`${num(p, 'port')}/${str(p, 'protocol')}`, num(p, 'nodePort') ?? 0]));
    for (const p of arr(spec, 'ports')) {
      const old = oldByPort.get(`${num(p, 'port')}/${str(p, 'protocol')}`);
      if ((num(p, 'nodePort') ?? 0) === 0 && old) p.nodePort = old;
    }
  }
  if (spec.ipFamilyPolicy === undefined && oldSpec.ipFamilyPolicy !== undefined && type !== 'ExternalName') spec.ipFamilyPolicy = oldSpec.ipFamilyPolicy;
  if (spec.ipFamilies === undefined && oldSpec.ipFamilies !== undefined && type !== 'ExternalName') spec.ipFamilies = oldSpec.ipFamilies;
}

const serviceMain = simpleStrategy({
  namespaced: true,
  nameFn: nameIsDNS1035Label,
  hasStatus: true,
  defaults: defaultService,
  prepareForCreate(obj) {
    obj.status = { loadBalancer: {} };
  },
  prepareForUpdate(obj, old) {
    patchAllocatedValues(rec(obj as Rec, 'spec'), specOf(old));
  },
  validate: validateService,
  validateUpdate: validateServiceUpdate,
});

async function beginCreate(obj: KObject, ctx: StrategyContext): Promise<FinishFunc> {
  const spec = rec(obj as Rec, 'spec');
  const txn = new Txn();
  if (str(spec, 'type') !== 'ExternalName') {
    const a = allocators(ctx);
    try {
      await allocClusterIP(obj, spec, a, txn, ctx.dryRun);
      await allocNodePorts(obj, spec, a, txn, ctx.dryRun, new Set());
    } catch (e) {
      await txn.revert();
      throw e;
    }
  }
  initFamilies(spec);
  return txn.finish();
}

async function beginUpdate(obj: KObject, old: KObject, ctx: StrategyContext): Promise<FinishFunc> {
  const spec = rec(obj as Rec, 'spec');
  const oldSpec = specOf(old);
  const txn = new Txn();
  const a = ctx.allocators;
  if (!a) return txn.finish();
  try {
    const hadIP = str(oldSpec, 'type') !== 'ExternalName' && !isHeadless(oldSpec) && str(oldSpec, 'clusterIP');
    const wantsIP = str(spec, 'type') !== 'ExternalName';
    if (wantsIP && !hadIP) await allocClusterIP(obj, spec, a, txn, ctx.dryRun);
    if (!wantsIP && hadIP && !ctx.dryRun) {
      const ip = str(oldSpec, 'clusterIP');
      txn.releaseOnCommit.push(() => a.clusterIPs.release(ip));
      delete spec.clusterIP;
      delete spec.clusterIPs;
    }
    const oldPorts = new Set(needsNodePorts(oldSpec) ? nodePortsOf(oldSpec) : []);
    await allocNodePorts(obj, spec, a, txn, ctx.dryRun, oldPorts);
    const newPorts = new Set(needsNodePorts(spec) ? nodePortsOf(spec) : []);
    if (!needsNodePorts(spec)) for (const p of arr(spec, 'ports')) delete p.nodePort;
    if (!ctx.dryRun) for (const np of oldPorts) if (!newPorts.has(np)) txn.releaseOnCommit.push(() => a.nodePorts.release(np));
  } catch (e) {
    await txn.revert();
    throw e;
  }
  initFamilies(spec);
  return txn.finish();
}

async function afterDelete(obj: KObject, ctx: StrategyContext): Promise<void> {
  const a = ctx.allocators;
  if (!a || ctx.dryRun) return;
  const spec = specOf(obj);
  for (const ip of clusterIPsOf(spec)) if (ip !== 'None') await a.clusterIPs.release(ip);
  for (const np of nodePortsOf(spec)) await a.nodePorts.release(np);
}

const serviceStrategy = { ...serviceMain, beginCreate, beginUpdate, afterDelete };

export const services: ResourceDef = {
  group: '',
  version: 'v1',
  kind: 'Service',
  listKind: 'ServiceList',
  resource: 'services',
  singular: 'service',
  namespaced: true,
  shortNames: ['svc'],
  categories: ['all'],
  verbs: ALL_VERBS,
  storagePrefix: 'services/specs',
  protoType: 'k8s.io.api.core.v1.Service',
  subresources: [{ name: 'status', kind: { group: '', version: 'v1', kind: 'Service' }, verbs: STATUS_VERBS }],
  strategy: serviceStrategy,
  statusStrategy: statusStrategy(serviceStrategy),
  table: serviceTable,
  selectableFields: (obj) => metaFields(obj, true),
};

