// core/v1 limitranges and resourcequotas: defaults, kube's validation
// messages, the status split, and the printers.

import { describe, expect, it } from 'vitest';
import type { KObject } from '../../../../main/kube/object';
import { invalid } from '../../../../main/apiserver/api/status';
import { limitranges } from '../../../../main/apiserver/registry/core/limitRanges';
import { resourcequotas } from '../../../../main/apiserver/registry/core/resourceQuotas';
import type { ResourceDef } from '../../../../main/apiserver/registry/rest/resourceDef';
import { compareQuantities, goQuantityLiteral } from '../../../../main/kube/schema/quantity';
import { NOW, testContext } from './ctx';

function messageFor(def: ResourceDef, obj: KObject): string {
  def.strategy.defaults(obj);
  const errs = def.strategy.validate(obj, testContext());
  return errs.length ? invalid({ group: def.group, kind: def.kind }, obj.metadata.name ?? '', errs).message : '';
}

const lr = (...limits: Record<string, unknown>[]): KObject => ({ metadata: { name: 'l', namespace: 'default' }, spec: { limits } });
const rq = (spec: Record<string, unknown>, status?: Record<string, unknown>): KObject => ({ metadata: { name: 'q', namespace: 'default' }, spec, ...(status ? { status } : {}) });

describe('quantity helpers', () => {
  it.each([
    ['100m', '0.1', 0],
    ['1Gi', '1G', 1],
    ['999Mi', '1Gi', -1],
    ['-1', '0', -1],
    ['1e3', '1k', 0],
  ])('compare %s %s', (a, b, want) => expect(compareQuantities(a, b)).toBe(want));
  it.each([
    ['200m', 'resource.Quantity{i:resource.int64Amount{value:200, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"200m", Format:"DecimalSI"}'],
    ['1Gi', 'resource.Quantity{i:resource.int64Amount{value:1073741824, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"1Gi", Format:"BinarySI"}'],
    ['0.5', 'resource.Quantity{i:resource.int64Amount{value:5, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:"DecimalSI"}'],
  ])('%%#v of %s', (q, want) => expect(goQuantityLiteral(q)).toBe(want));
});

describe('LimitRange', () => {
  it('container items: default from max, defaultRequest from default then min', () => {
    const obj = lr({ type: 'Container', max: { cpu: '2', memory: '1Gi' }, default: { memory: '512Mi' }, min: { cpu: '100m', 'ephemeral-storage': '1Gi' } }, { type: 'Pod', max: { cpu: '4' } });
    limitranges.strategy.defaults(obj);
    const [c, p] = (obj.spec as { limits: Record<string, unknown>[] }).limits;
    expect(c.default).toEqual({ cpu: '2', memory: '512Mi' });
    expect(c.defaultRequest).toEqual({ cpu: '2', memory: '512Mi', 'ephemeral-storage': '1Gi' });
    expect(p.default).toBeUndefined();
    const bare = lr({ type: 'Container', maxLimitRequestRatio: { cpu: '2' } });
    limitranges.strategy.defaults(bare);
    expect((bare.spec as { limits: unknown[] }).limits).toEqual([{ type: 'Container', maxLimitRequestRatio: { cpu: '2' } }]);
  });

  const L = 'LimitRange "l" is invalid: ';
  const q = (s: string) => goQuantityLiteral(s);
  it.each([
    ['valid', lr({ type: 'Container', min: { cpu: '100m' }, max: { cpu: '1' }, maxLimitRequestRatio: { cpu: '4' } }), ''],
    ['unknown type', lr({ type: 'Thing' }), `${L}spec.limits[0].type: Invalid value: "Thing": must be a standard limit type or fully qualified`],
    ['qualified type', lr({ type: 'example.com/Thing', max: { 'example.com/widgets': '2' } }), ''],
    ['duplicate type', lr({ type: 'Pod' }, { type: 'Pod' }), `${L}spec.limits[1].type: Duplicate value: "Pod"`],
    ['container resource name', lr({ type: 'Container', max: { pods: '1' } }), `${L}[spec.limits[0].max[pods]: Invalid value: "pods": must be a standard resource for containers, spec.limits[0].default[pods]: Invalid value: "pods": must be a standard resource for containers, spec.limits[0].defaultRequest[pods]: Invalid value: "pods": must be a standard resource for containers]`],
    ['pod defaults forbidden', lr({ type: 'Pod', default: { cpu: '1' } }), `${L}spec.limits[0].default: Forbidden: may not be specified when \`type\` is 'Pod'`],
    ['pvc needs a storage bound', lr({ type: 'PersistentVolumeClaim' }), `${L}spec.limits[0].limits: Required value: either minimum or maximum storage value is required, but neither was provided`],
    ['min above max', lr({ type: 'Pod', min: { cpu: '2' }, max: { cpu: '1' } }), `${L}spec.limits[0].min[cpu]: Invalid value: ${q('2')}: min value 2 is greater than max value 1`],
    [
      'default above max, defaults come from it',
      lr({ type: 'Container', max: { memory: '1Gi' }, default: { memory: '2Gi' } }),
      `${L}[spec.limits[0].defaultRequest[memory]: Invalid value: ${q('2Gi')}: default request value 2Gi is greater than max value 1Gi, spec.limits[0].default[memory]: Invalid value: ${q('1Gi')}: default value 2Gi is greater than max value 1Gi]`,
    ],
    ['request above limit', lr({ type: 'Container', default: { cpu: '500m' }, defaultRequest: { cpu: '1' } }), `${L}spec.limits[0].defaultRequest[cpu]: Invalid value: ${q('1')}: default request value 1 is greater than default limit value 500m`],
    ['ratio below 1', lr({ type: 'Pod', maxLimitRequestRatio: { cpu: '500m' } }), `${L}spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: ${q('500m')}: ratio 500m is less than 1`],
    ['ratio above max/min', lr({ type: 'Pod', min: { cpu: '1' }, max: { cpu: '2' }, maxLimitRequestRatio: { cpu: '3' } }), `${L}spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: ${q('3')}: ratio 3 is greater than max/min = 2.000000`],
    ['hugepages may not overcommit', lr({ type: 'Container', default: { 'hugepages-2Mi': '4Mi' }, defaultRequest: { 'hugepages-2Mi': '2Mi' } }), `${L}spec.limits[0].defaultRequest[hugepages-2Mi]: Invalid value: ${q('2Mi')}: default value 4Mi must equal to defaultRequest value 2Mi in hugepages-2Mi`],
  ])('%s', (_n, obj, want) => expect(messageFor(limitranges, obj)).toBe(want));
});

describe('ResourceQuota', () => {
  const Q = 'ResourceQuota "q" is invalid: ';
  it.each([
    ['valid', rq({ hard: { pods: '10', 'requests.cpu': '2', 'count/deployments.apps': '3', 'requests.nvidia.com/gpu': '1' } }), ''],
    ['unknown resource', rq({ hard: { bananas: '1' } }), `${Q}[spec.hard[bananas]: Invalid value: "bananas": must be a standard resource type or fully qualified, spec.hard[bananas]: Invalid value: "bananas": must be a standard resource for quota]`],
    ['not a quota resource', rq({ hard: { storage: '1Gi' } }), `${Q}spec.hard[storage]: Invalid value: "storage": must be a standard resource for quota`],
    ['negative', rq({ hard: { cpu: '-1' } }), `${Q}spec.hard[cpu]: Invalid value: "-1": must be greater than or equal to 0`],
    ['object counts are whole', rq({ hard: { pods: '1500m' } }), `${Q}spec.hard[pods]: Invalid value: ${goQuantityLiteral('1500m')}: must be an integer`],
    ['unsupported scope', rq({ hard: { pods: '1' }, scopes: ['Sometimes'] }), `${Q}spec.scopes: Invalid value: []core.ResourceQuotaScope{"Sometimes"}: unsupported scope`],
    ['scope vs resource', rq({ hard: { secrets: '1' }, scopes: ['BestEffort'] }), `${Q}spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort"}: unsupported scope applied to resource`],
    ['conflicting scopes', rq({ hard: { pods: '1' }, scopes: ['Terminating', 'NotTerminating'] }), `${Q}spec.scopes: Invalid value: []core.ResourceQuotaScope{"Terminating", "NotTerminating"}: conflicting scopes`],
    ['selector In needs values', rq({ hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In' }] } }), `${Q}spec.scopeSelector.matchExpressions.values: Required value: must be at least one value when \`operator\` is 'In' or 'NotIn' for scope selector`],
    ['selector BestEffort must be Exists', rq({ scopeSelector: { matchExpressions: [{ scopeName: 'BestEffort', operator: 'In', values: ['x'] }] } }), `${Q}spec.scopeSelector.matchExpressions.operator: Invalid value: "In": must be 'Exist' only operator when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort and ResourceQuotaScopeNotBestEffort`],
  ])('%s', (_n, obj, want) => expect(messageFor(resourcequotas, obj)).toBe(want));

  it('create drops status; main updates keep it; scopes are immutable', async () => {
    const ctx = testContext();
    const obj = rq({ hard: { pods: '2' } }, { hard: { pods: '2' }, used: { pods: '1' } });
    await resourcequotas.strategy.prepareForCreate(obj, ctx);
    expect(obj.status).toBeUndefined();
    const old: KObject = { ...rq({ hard: { pods: '2' }, scopes: ['NotTerminating'] }, { hard: { pods: '2' }, used: { pods: '1' } }), metadata: { ...obj.metadata } };
    const upd: KObject = { ...rq({ hard: { pods: '3' }, scopes: ['NotTerminating'] }, { used: { pods: '0' } }), metadata: { ...obj.metadata } };
    await resourcequotas.strategy.prepareForUpdate(upd, old, ctx);
    expect(upd.status).toEqual(old.status);
    expect(resourcequotas.strategy.validateUpdate(upd, old, ctx)).toEqual([]);
    const rescoped = { ...upd, spec: { hard: { pods: '3' }, scopes: ['Terminating'] } };
    expect(invalid({ group: '', kind: 'ResourceQuota' }, 'q', resourcequotas.strategy.validateUpdate(rescoped, old, ctx)).message).toBe(
      `${Q}spec.scopes: Invalid value: []core.ResourceQuotaScope{"Terminating"}: field is immutable`,
    );
  });

  it('status writes keep spec and need a resourceVersion', async () => {
    const ctx = testContext();
    const s = resourcequotas.statusStrategy!;
    const old: KObject = { ...rq({ hard: { pods: '2' } }), metadata: { name: 'q', namespace: 'default', resourceVersion: '5', uid: 'u' } };
    const upd: KObject = { ...rq({ hard: { pods: '9' } }, { hard: { pods: '2' }, used: { pods: '1' } }), metadata: { name: 'q', namespace: 'default', uid: 'u' } };
    await s.prepareForUpdate(upd, old, ctx);
    expect(upd.spec).toEqual({ hard: { pods: '2' } });
    expect(s.validateUpdate(upd, old, ctx).map((e) => `${e.field}: ${e.type}`)).toEqual(['resourceVersion: FieldValueRequired']);
    upd.metadata.resourceVersion = '5';
    expect(s.validateUpdate(upd, old, ctx)).toEqual([]);
  });

  it('prints used/hard per resource, limits.* in LIMIT (1.32 column order)', () => {
    expect(resourcequotas.table.columns.map((c) => c.name)).toEqual(['Name', 'Age', 'Request', 'Limit']);
    const created = new Date(NOW.getTime() - 90_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const obj = rq({}, { hard: { pods: '10', 'requests.cpu': '1', 'limits.memory': '2Gi', 'limits.cpu': '2' }, used: { pods: '3', 'limits.cpu': '500m' } });
    obj.metadata.creationTimestamp = created;
    expect(resourcequotas.table.cells(obj, NOW)).toEqual(['q', '90s', 'pods: 3/10, requests.cpu: 0/1', 'limits.cpu: 500m/2, limits.memory: 0/2Gi']);
  });

  it('limitranges use the default NAME / CREATED AT table', () => {
    expect(limitranges.table.columns.map((c) => c.name)).toEqual(['Name', 'Created At']);
    expect([limitranges.shortNames, resourcequotas.shortNames, resourcequotas.subresources.map((s) => s.name)]).toEqual([['limits'], ['quota'], ['status']]);
  });
});
