import { describe, expect, it } from 'vitest';
import type { KObject } from '../../../../main/kube/object';
import { StatusError } from '../../../../main/apiserver/api/status';
import { services } from '../../../../main/apiserver/registry/core/services';
import type { StrategyContext } from '../../../../main/apiserver/registry/rest/resourceDef';
import { testContext } from './ctx';

/** The create path as the REST layer runs it: defaults → beginCreate → prepare → validate → finish. */
async function create(ctx: StrategyContext, spec: Record<string, unknown>, name = 'web', commit = true): Promise<KObject> {
  const s: KObject = { metadata: { name, namespace: 'default' }, spec };
  services.strategy.defaults(s);
  const finish = await services.strategy.beginCreate!(s, ctx);
  await services.strategy.prepareForCreate(s, ctx);
  const errs = services.strategy.validate(s, ctx);
  await finish(commit && errs.length === 0);
  if (errs.length) throw new Error(JSON.stringify(errs));
  return s;
}

async function update(ctx: StrategyContext, old: KObject, mut: (s: KObject & { spec: Record<string, any> }) => void): Promise<KObject> {
  const s = JSON.parse(JSON.stringify(old));
  mut(s);
  services.strategy.defaults(s);
  await services.strategy.prepareForUpdate(s, old, ctx);
  const finish = await services.strategy.beginUpdate!(s, old, ctx);
  const errs = services.strategy.validateUpdate(s, old, ctx);
  await finish(errs.length === 0);
  if (errs.length) throw Object.assign(new Error(errs[0].detail), { errs });
  return s;
}

describe('service IP allocation through the strategy', () => {
  it('a requested IP twice: kube 422 text', async () => {
    const ctx = testContext();
    await create(ctx, { clusterIP: '10.96.0.10', ports: [{ port: 53, protocol: 'UDP' }] }, 'kube-dns');
    const err = await create(ctx, { clusterIP: '10.96.0.10', ports: [{ port: 53, protocol: 'UDP' }] }, 'kube-dns2').catch((e) => e);
    expect(err).toBeInstanceOf(StatusError);
    expect(err.status.code).toBe(422);
    expect(err.status.message).toBe(
      'Service "kube-dns2" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.10"}: failed to allocate IP 10.96.0.10: provided IP is already allocated',
    );
  });

  it('headless None allocates nothing; ExternalName has no IP fields', async () => {
    const ctx = testContext();
    const h = await create(ctx, { clusterIP: 'None', selector: { app: 'x' }, ports: [{ port: 80 }] });
    expect(h.spec).toMatchObject({ clusterIP: 'None', clusterIPs: ['None'], ipFamilyPolicy: 'SingleStack' });
    const e = await create(ctx, { type: 'ExternalName', externalName: 'example.com' }, 'ext');
    expect((e.spec as Record<string, unknown>).clusterIP).toBeUndefined();
    expect((e.spec as Record<string, unknown>).ipFamilies).toBeUndefined();
    expect(await ctx.allocators!.clusterIPs.has('10.96.0.1')).toBe(false);
  });

  it('failed create releases what it allocated; delete releases IP and node ports', async () => {
    const ctx = testContext();
    const a = ctx.allocators as unknown as { clusterIPs: { used(): Promise<number> }; nodePorts: { used(): Promise<number> } };
    await expect(create(ctx, { type: 'NodePort', ports: [{ port: 80 }, { port: 81 }] }, 'bad')).rejects.toThrow('spec.ports[1].name');
    expect(await a.clusterIPs.used()).toBe(0);
    expect(await a.nodePorts.used()).toBe(0);
    const s = await create(ctx, { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }, { name: 'b', port: 81 }].map((p, i) => (i === 0 ? { ...p, name: 'a' } : p)) });
    const ports = (s.spec as { ports: { nodePort: number }[] }).ports;
    expect(ports[0].nodePort).toBe(30080);
    expect(ports[1].nodePort).toBeGreaterThanOrEqual(30000);
    expect(await a.nodePorts.used()).toBe(2);
    const dup = await create(ctx, { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] }, 'dup').catch((e) => e);
    expect(dup.status.message).toBe('Service "dup" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated');
    expect(await a.clusterIPs.used()).toBe(1); // dup's IP was given back
    await services.strategy.afterDelete!(s, ctx);
    expect(await a.clusterIPs.used()).toBe(0);
    expect(await a.nodePorts.used()).toBe(0);
  });

  it('updates keep the cluster IP, refuse to change it, and free node ports on type change', async () => {
    const ctx = testContext();
    const a = ctx.allocators as unknown as { nodePorts: { used(): Promise<number> } };
    const s = await create(ctx, { type: 'NodePort', ports: [{ port: 80 }] });
    const ip = (s.spec as { clusterIP: string }).clusterIP;
    const kept = await update(ctx, s, (x) => {
      delete x.spec.clusterIP;
      delete x.spec.clusterIPs;
      delete x.spec.ports[0].nodePort;
    });
    expect(kept.spec).toMatchObject({ clusterIP: ip, clusterIPs: [ip], ports: [{ nodePort: (s.spec as any).ports[0].nodePort }] });
    const err = await update(ctx, s, (x) => (x.spec.clusterIP = '10.96.0.77')).catch((e) => e);
    expect(err.errs[0]).toMatchObject({ field: 'spec.clusterIPs[0]', detail: 'may not change once set' });
    expect(await a.nodePorts.used()).toBe(1);
    const ci = await update(ctx, s, (x) => {
      x.spec.type = 'ClusterIP';
      delete x.spec.ports[0].nodePort;
      delete x.spec.externalTrafficPolicy;
    });
    expect((ci.spec as any).ports[0].nodePort).toBeUndefined();
    expect(await a.nodePorts.used()).toBe(0);
  });

  it('dry run allocates nothing', async () => {
    const ctx = testContext({ dryRun: true });
    const real = testContext();
    const s = await create({ ...real, dryRun: true }, { type: 'NodePort', ports: [{ port: 80 }] });
    expect((s.spec as Record<string, unknown>).clusterIP).toMatch(/^10\./);
    expect((s.spec as { ports: { nodePort: number }[] }).ports[0].nodePort).toBeGreaterThanOrEqual(30000);
    expect(ctx.dryRun).toBe(true);
    expect(real.storage.writes).toBe(0);
  });
});
