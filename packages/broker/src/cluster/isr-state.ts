import type { Logger } from '@gregor/common';
import type { IsrWrite, IsrWriteResult } from './isr-writer.js';

/**
 * The leader's ISR (KIP-497's IsrState). While a change is being written to ZooKeeper it is pending, and the
 * high watermark is computed over the maximal ISR: the committed one plus a member being added. A member being
 * removed still counts until the removal is committed.
 */
export type IsrState =
  | { kind: 'committed'; isr: readonly number[] }
  | { kind: 'pendingExpand'; isr: readonly number[]; newInSyncReplicaId: number }
  | { kind: 'pendingShrink'; isr: readonly number[]; outOfSyncReplicaIds: readonly number[] };

export function maximalIsrOf(state: IsrState): readonly number[] {
  return state.kind === 'pendingExpand' ? [...state.isr, state.newInSyncReplicaId] : state.isr;
}

/**
 * The leader's ISR once ZooKeeper's answer to `write` is known: the new ISR committed (at its zkVersion), or the old one
 * kept; null while the answer says nothing (the change stays pending).
 */
export function isrStateAfterWrite(pending: IsrState, write: IsrWrite, result: IsrWriteResult, logger: Logger): { isrState: IsrState; zkVersion?: number } | null {
  const what = write.change;
  switch (result.outcome) {
    case 'committed':
      logger.info({ from: pending.isr, to: write.isr, leaderEpoch: write.leaderEpoch, zkVersion: result.zkVersion }, what === 'expand' ? 'ISR expanded' : 'ISR shrunk');
      return { isrState: { kind: 'committed', isr: write.isr }, zkVersion: result.zkVersion };
    case 'notApplied':
      logger.warn({ isr: pending.isr, proposed: write.isr }, `ISR ${what} did not reach ZooKeeper; keeping the committed ISR`);
      return { isrState: { kind: 'committed', isr: pending.isr } };
    default:
      // Keep the maximal ISR: ZooKeeper may hold either ISR, and only the controller's next LeaderAndIsr will say.
      logger.warn({ isr: pending.isr, proposed: write.isr, outcome: result.outcome }, `ISR ${what} not confirmed; it stays pending until the next LeaderAndIsr`);
      return null;
  }
}
