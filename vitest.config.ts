import { configDefaults, defineConfig } from 'vitest/config';

// Three tiers, each a vitest project (docs/testing.md). A new file lands in a tier by where it lives and,
// in the server's mixed folders, by its name: `*.unit.test.ts` is a unit test, any other server test is an
// integration test unless it sits in an end-to-end folder.

/**
 * Unit: no database, no listening socket, no child process, no built files. Runs without `npm run build`
 * and without the system tools.
 */
const UNIT = [
  'packages/contracts/test/**/*.test.ts',
  'packages/web/src/**/*.test.{ts,tsx}',
  'packages/server/test/**/*.unit.test.ts',
  // Static checks of the Dockerfile, compose.yaml and .env.example.
  'packages/server/test/deploy/**/*.test.ts',
  // Server tests written before the naming rule, in folders that also hold integration tests.
  ...[
    'platform/audit-details',
    'platform/logger',
    'platform/settings',
    'platform/tasks/scheduler',
    'services/gateway/client-ip',
    'services/media/library-layout',
    'services/media/naming',
    'services/media/nfo',
    'services/media/outbound-webhooks/template',
    'services/play-agent/authorization',
    'services/play-agent/local-source',
    'services/play-agent/playback-gate',
    'services/play-agent/policy-refresher',
    'services/play-agent/protocol-helpers',
    'services/play-agent/range',
    'services/play-agent/reporting',
    'services/play-agent/token-bucket',
    'services/user/auth.service',
    'services/user/login-lock',
    'services/user/password-hasher',
    'services/user/quota-periods',
    'services/user/reports/report-time',
    'services/user/users.service',
  ].map((name) => `packages/server/test/${name}.test.ts`),
];

/** End to end: the built program (`npm run build`) started as real processes, and the browser tests. */
const E2E = [
  'packages/*/test/e2e/**/*.test.ts',
  // Outside an e2e folder: kills and restarts the built `svc node storage`.
  'packages/server/test/services/storage/crash-safety.test.ts',
  // Outside an e2e folder: checks the built index.html.
  'packages/server/test/services/frontend/document-headers.test.ts',
];

/** Integration: every other server test (databases, Fastify apps, loopback servers, ffmpeg, rclone, Redis). */
const INTEGRATION = ['packages/server/test/**/*.test.ts'];

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: true,
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'unit', include: UNIT, exclude: [...configDefaults.exclude, ...E2E] } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: INTEGRATION,
          exclude: [...configDefaults.exclude, ...UNIT, ...E2E],
        },
      },
      { extends: true, test: { name: 'e2e', include: E2E } },
    ],
  },
});
