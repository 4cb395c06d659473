import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts', 'packages/web/src/**/*.test.{ts,tsx}'],
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Suites that start real processes on fixed ports must not overlap; they opt in with this tag in their file name.
    fileParallelism: true,
    maxWorkers: 2,
  },
});
