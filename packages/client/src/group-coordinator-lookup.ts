import { ErrorCode, KafkaProtocolError } from '@gregor/common';
import { FindCoordinator } from '@gregor/protocol';
import type { KafkaClient } from './cluster.js';
import { retry } from '@gregor/net';

/** Errors after which a group client must look its coordinator up again. */
export const COORDINATOR_ERRORS: ReadonlySet<number> = new Set([
  ErrorCode.NOT_COORDINATOR,
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
  ErrorCode.NETWORK_EXCEPTION,
]);

/**
 * FindCoordinator for a group, asked of any broker and retried while the coordinator is not available
 * (`__consumer_offsets` being created, a partition without a leader). Returns the coordinator's node id.
 */
export async function findGroupCoordinator(client: KafkaClient, groupId: string, signal?: AbortSignal): Promise<number> {
  return retry(
    async () => {
      const res = await client.sendToAny(FindCoordinator, { key: groupId, keyType: 0 });
      if (res.errorCode !== ErrorCode.NONE) throw new KafkaProtocolError(res.errorCode, `FindCoordinator for group ${groupId}: ${res.errorMessage ?? ''}`);
      // The coordinator must be in the metadata for connectionTo(); refresh when it is new to us.
      if (!client.broker(res.nodeId)) await client.refreshMetadata([]);
      return res.nodeId;
    },
    { retries: 30, retryBackoffMs: 100, retryBackoffMaxMs: 1000, ...(signal ? { signal } : {}) },
  );
}
