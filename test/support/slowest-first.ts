// vitest sequencer: the suite's longest files start first, so that the two workers finish together.
// vitest hands files out in the order its sequencer returns, each to the next free worker. Its own
// order puts the longest first only when it has durations cached from an earlier run on this machine
// (node_modules/.vite); a fresh checkout (CI) has none, and files then go by size in bytes: in a run of
// 1354 s, test/jepsen/network-faults.test.ts (100 s) started after 1150 s and test/jepsen/process-faults
// (167 s) after 880 s. The list is measured (seconds, 2 cores, whole suite running); the rest
// keeps vitest's order.
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The longest files, longest first (seconds of a whole run on 2 cores, 2026-12). The three files with a
 * compose cluster (test/chaos/*, test/jepsen/network-faults) run one at a time (test/chaos/compose-lock.ts):
 * a worker that starts one while another runs waits for it, idle, so they are kept apart in the list
 * (containers first; network-faults when the first worker frees; secure-profile two places later).
 */
export const SLOWEST: readonly string[] = [
  'test/chaos/containers.test.ts', // 249, compose
  'test/integration/readme-commands.test.ts', // 222 (with npm ci, ~330)
  'test/jepsen/process-faults.test.ts', // 167
  'test/jepsen/network-faults.test.ts', // 100, compose
  'test/failure/replication-failures.test.ts', // 149
  'test/chaos/secure-profile.test.ts', // 116, compose
  'packages/cli/test/cli-groups.test.ts', // 104
  'test/failure/idempotent-producers.test.ts', // 94
  'packages/cli/test/cli-admin.test.ts', // 93
  'test/integration/reassignment-api.test.ts', // 74
  'packages/cli/src/commands/acls.test.ts', // 71
  'test/console/console.test.ts', // 65
  'packages/cli/test/cli-cluster.test.ts', // 58
  'test/integration/delete-records.test.ts', // 55
  'test/groups/group-failover.test.ts', // 54
  'test/failure/leader-epochs.test.ts', // 51
  'test/integration/cli-command-config.test.ts', // 45
  'test/consumer/connector.test.ts', // 42
  'test/groups/kafkajs-groups.test.ts', // 41
  'test/integration/secure-clients.test.ts', // 36
  'test/integration/kcat-old-versions.test.ts', // 29
  'test/integration/sarama.test.ts', // 26
  'test/integration/broker-limits.test.ts', // 24
  'test/integration/restart.test.ts', // 23
  'test/integration/codecs.test.ts', // 23
];

export class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification): number => {
      const i = SLOWEST.indexOf(relative(file.project.config.root, file.moduleId));
      return i === -1 ? SLOWEST.length : i;
    };
    // Array.prototype.sort is stable: the files not listed keep vitest's order after the listed ones.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
