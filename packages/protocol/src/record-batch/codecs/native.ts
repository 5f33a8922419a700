import { createRequire } from 'node:module';
import { ErrorCode, GregorError } from '@gregor/common';

const require = createRequire(import.meta.url);

/**
 * Loads a native codec module on first use, so a process that never meets snappy, lz4 or zstd never loads
 * them, and a missing binary is UNSUPPORTED_COMPRESSION_TYPE for that codec rather than a failed start.
 */
export function lazyNative<T>(codec: string, moduleId: string): () => T {
  let loaded: T | undefined;
  return () => {
    if (loaded !== undefined) return loaded;
    try {
      loaded = require(moduleId) as T;
    } catch (err) {
      throw new GregorError(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, `${codec} codec unavailable: ${moduleId} did not load (${(err as Error).message})`, { cause: err });
    }
    return loaded;
  };
}
