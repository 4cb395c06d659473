import { randomBytes } from 'node:crypto';
import { dropExternalDatabase } from '../../src/platform/db/index.js';

export interface InstallBackend {
  label: 'pglite' | 'postgres+redis';
  /** Variables that point an install at this backend. */
  env: Record<string, string>;
  /** Drops what the backend created (databases on the real server). */
  cleanup(): Promise<void>;
}

const DATABASES = ['svc_user', 'svc_media', 'svc_config', 'yiyi_storage'];

/**
 * The backends a whole install is tested on: the embedded database always, and the machine's real
 * PostgreSQL and Redis when SVC_TEST_DATABASE_URL and SVC_TEST_REDIS_URL are set. In CI both must be
 * set: nothing may be skipped there.
 */
export function installBackends(): InstallBackend[] {
  const backends: InstallBackend[] = [
    { label: 'pglite', env: { SVC_DB_MODE: 'bundled' }, cleanup: async () => {} },
  ];
  const databaseUrl = process.env.SVC_TEST_DATABASE_URL;
  const redisUrl = process.env.SVC_TEST_REDIS_URL;
  if (databaseUrl && redisUrl) {
    const suffix = `_t${randomBytes(4).toString('hex')}`;
    backends.push({
      label: 'postgres+redis',
      env: {
        SVC_DB_MODE: 'external',
        SVC_DATABASE_URL: databaseUrl,
        SVC_DB_NAME_SUFFIX: suffix,
        SVC_REDIS_URL: redisUrl,
      },
      cleanup: async () => {
        for (const name of DATABASES) await dropExternalDatabase(databaseUrl, `${name}${suffix}`);
      },
    });
  } else if (process.env.CI === 'true') {
    throw new Error(
      'CI must set SVC_TEST_DATABASE_URL and SVC_TEST_REDIS_URL: the PostgreSQL + Redis suites may not be skipped',
    );
  }
  return backends;
}
