// A StrategyContext for registry tests: fixed clock, in-memory allocators.

import type { StrategyContext } from '../../../../main/apiserver/registry/rest/resourceDef';
import { createServiceAllocators } from '../../../../main/apiserver/registry/allocator/serviceAllocators';
import { MemStorage } from './memStorage';

export const NOW = new Date('2026-03-01T12:00:00.000Z');

export function testContext(over: Partial<StrategyContext> = {}): StrategyContext & { storage: MemStorage } {
  const storage = new MemStorage();
  return {
    user: { username: 'admin', groups: ['system:masters'] },
    namespace: 'default',
    storageFor: () => storage,
    now: () => NOW,
    dryRun: false,
    allocators: createServiceAllocators({ storage }),
    storage,
    ...over,
  };
}
