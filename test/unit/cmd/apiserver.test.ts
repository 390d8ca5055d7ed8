import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { ApiServerConfig } from '../../../main/apiserver/config';
import { apiResourceOptions, withEventTtl } from '../../../main/apiserver/options/apiResources';
import { parseWatchCacheSizes } from '../../../main/apiserver/options/etcdStorage';
import { allResources } from '../../../main/apiserver/registry/index';

function eventTtlSeconds(args: string[]): number | undefined {
  const cmd = new Command().exitOverride();
  apiResourceOptions.register(cmd);
  cmd.parse(args, { from: 'user' });
  const cfg = { resources: allResources() } as ApiServerConfig;
  apiResourceOptions.apply(cmd.opts(), cfg);
  return cfg.resources.find((d) => d.resource === 'events' && d.group === '')!.ttlSeconds!({ metadata: {} });
}

describe('apiserver flags', () => {
  it('--watch-cache-sizes resource[.group]#size', () => {
    expect([...parseWatchCacheSizes('pods#1000,deployments.apps#50')]).toEqual([['pods', 1000], ['deployments.apps', 50]]);
    expect(parseWatchCacheSizes(undefined).size).toBe(0);
    expect(() => parseWatchCacheSizes('pods')).toThrow('invalid value of watch cache size: pods');
  });
  it('--event-ttl Go durations', () => {
    const cases: [string, number][] = [['1h', 3600], ['30m', 1800], ['90s', 90], ['1h30m', 5400]];
    for (const [v, want] of cases) expect(eventTtlSeconds([`--event-ttl=${v}`])).toBe(want);
    expect(eventTtlSeconds([])).toBe(3600);
    expect(() => eventTtlSeconds(['--event-ttl=1d'])).toThrow('time: unknown unit "d" in duration "1d"');
  });
  it('--event-ttl reaches the events resource only', () => {
    const defs = withEventTtl(allResources(), 120);
    const events = defs.find((d) => d.resource === 'events' && d.group === '')!;
    expect(events.ttlSeconds!({ metadata: {} })).toBe(120);
    expect(defs.find((d) => d.resource === 'pods')!.ttlSeconds).toBeUndefined();
  });
});
