import { PGlite } from '@electric-sql/pglite';

/**
 * PostgreSQL settings of every embedded instance (docs/database.md, "Memory and durability").
 *   shared_buffers: emscripten zero-fills PostgreSQL's shared memory at start, so all of it is resident from
 *     the first second (PGlite's default, 128MB, cost that much per instance). Pages that miss it are read
 *     from the kernel's page cache, which is not charged to the process.
 *   maintenance_work_mem: WebAssembly memory never shrinks, so a peak (CREATE INDEX on a big table) stays.
 *   wal_sync_method: fsync() is the one sync call PGlite's Node filesystem can carry out (see
 *     DurableNodeFS); its fdatasync() does nothing, and fdatasync is PostgreSQL's default.
 *   max_wal_size / min_wal_size: a single-user PostgreSQL has no checkpointer process, so checkpoints come
 *     only from WAL volume (and at close): this bounds the WAL on disk and the replay after a crash.
 */
export const PGLITE_SETTINGS: Readonly<Record<string, string>> = {
  shared_buffers: '16MB',
  maintenance_work_mem: '16MB',
  wal_sync_method: 'fsync',
  max_wal_size: '64MB',
  min_wal_size: '32MB',
};

/** PGlite's own start parameters without -F (fsync off), plus our settings. */
export function pgliteStartParams(): string[] {
  const params = PGlite.defaultStartParams.filter((param) => param !== '-F');
  for (const [name, value] of Object.entries(PGLITE_SETTINGS)) params.push('-c', `${name}=${value}`);
  return params;
}

/**
 * V8 flags for the WebAssembly compiled from now on in this process: baseline (Liftoff) code only, no
 * optimised (TurboFan) tier-up of hot functions; functions Liftoff cannot compile still get TurboFan.
 * PostgreSQL's 9 MB module otherwise costs ~50 MB more resident memory per process (optimised code and
 * compiler memory the allocator keeps), and in measurements its queries were not slower without it. Set
 * before the first instance compiles the module; modules compiled earlier keep their tiering.
 */
export const WASM_FLAGS = ['--no-wasm-dynamic-tiering', '--no-wasm-tier-up'] as const;
