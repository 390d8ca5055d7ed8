import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { buildInfo } from './scripts/buildInfo.mjs';

export default defineConfig({
  define: { __PILOTHOUSE_BUILD__: JSON.stringify(buildInfo()) },
  test: {
    exclude: ['test/e2e/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      {
        // In-process tests: every socket binds port 0 (or ports from
        // test/support/freePorts.ts) and every file writes under mkdtemp, so
        // files run in parallel. Most of their time is spent waiting on timers
        // and loopback sockets, not the CPU: at least 4 workers even on a
        // 2-CPU machine, where vitest's default (CPUs - 1) would be one.
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/sim/**/*.test.ts'],
          maxWorkers: Math.max(4, availableParallelism() - 1),
        },
      },
      {
        // Integration tests start real processes on fixed loopback port
        // ranges: files run one at a time so two suites never race for ports
        // or CPU, and only after the unit project so they never share the CPU
        // with it either.
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
