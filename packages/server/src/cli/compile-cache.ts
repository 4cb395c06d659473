import * as nodeModule from 'node:module';

type EnableCompileCache = (directory?: string) => { status: number; message?: string };

/**
 * Turns on Node's on-disk cache of compiled modules (Node >= 22.1) before the program loads its code:
 * every later start of any process reuses the compiled chunks and libraries instead of compiling them
 * again. The cache lives in Node's default place (node-compile-cache under the OS temp folder, or
 * NODE_COMPILE_CACHE); NODE_DISABLE_COMPILE_CACHE=1 turns it off. Where Node lacks it, or the folder
 * cannot be made, the program simply starts without it.
 */
export function enableModuleCompileCache(
  enable: EnableCompileCache | null = (nodeModule as { enableCompileCache?: EnableCompileCache })
    .enableCompileCache ?? null,
): boolean {
  if (typeof enable !== 'function') return false;
  try {
    const result = enable();
    return (
      result.status === nodeModule.constants?.compileCacheStatus?.ENABLED ||
      result.status === nodeModule.constants?.compileCacheStatus?.ALREADY_ENABLED
    );
  } catch {
    return false;
  }
}

enableModuleCompileCache();
