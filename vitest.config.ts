import { defineConfig } from 'vitest/config';
import { SlowestFirstSequencer } from './test/support/slowest-first.js';

export default defineConfig({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    // No test may leave a process behind: checked per file, and for the whole run (test/support/test-children.ts).
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/process-guard.ts'],
    fileParallelism: true,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    // The longest files first, so that the two workers finish together (test/support/slowest-first.ts).
    sequence: { sequencer: SlowestFirstSequencer },
  },
});
