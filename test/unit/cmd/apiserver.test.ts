import { describe, expect, it } from 'vitest';
import { parseDurationSeconds, parseWatchCacheSizes, withEventTtl } from '../../../main/cmd/apiserver';
import { allResources } from '../../../main/apiserver/registry/index';

describe('apiserver flags', () => {
  it('--watch-cache-sizes resource[.group]#size', () => {
    expect([...parseWatchCacheSizes('pods#1000,deployments.apps#50')]).toEqual([['pods', 1000], ['deployments.apps', 50]]);
    expect(parseWatchCacheSizes(undefined).size).toBe(0);
    expect(() => parseWatchCacheSizes('pods')).toThrow('invalid value of watch cache size: pods');
  });
  it('--event-ttl Go durations', () => {
    const cases: [string, number][] = [['1h', 3600], ['30m', 1800], ['90s', 90], ['1h30m', 5400]];
    for (const [v, want] of cases) expect(parseDurationSeconds(v)).toBe(want);
    expect(() => parseDurationSeconds('1d')).toThrow('invalid duration "1d"');
  });
  it('--event-ttl reaches the events resource only', () => {
    const defs = withEventTtl(allResources(), 120);
    const events = defs.find((d) => d.resource === 'events' && d.group === '')!;
    expect(events.ttlSeconds!({ metadata: {} })).toBe(120);
    expect(defs.find((d) => d.resource === 'pods')!.ttlSeconds).toBeUndefined();
  });
});
