import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/e2e/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration tests start real processes on fixed loopback port ranges;
    // files run one at a time so two suites never race for ports or CPU.
    fileParallelism: false,
    pool: 'forks',
  },
});
