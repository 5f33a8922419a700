import type { Logger } from '@gregor/common';
import type { PartitionLog } from './log.js';

/** The LogManager's periodic work over every log; a failure of one log is logged and the others go on. */

/** Retention (Kafka's cleanupLogs task): each log deletes its segments past retention. */
export function deleteOldSegments(logs: readonly PartitionLog[], now: number, logger: Logger): void {
  for (const log of logs) {
    try {
      log.deleteOldSegments(now);
    } catch (err) {
      logger.error({ err, topic: log.topic, partition: log.partition }, 'retention failed');
    }
  }
}

/** Producer ids idle for producer.id.expiration.ms are forgotten in every log. */
export function removeExpiredProducers(logs: readonly PartitionLog[], now: number, logger: Logger): void {
  for (const log of logs) {
    try {
      const removed = log.removeExpiredProducers(now);
      if (removed > 0) logger.info({ topic: log.topic, partition: log.partition, removed }, 'expired producer ids');
    } catch (err) {
      logger.error({ err, topic: log.topic, partition: log.partition }, 'producer id expiration failed');
    }
  }
}

/** flush.ms: fsyncs each log whose last flush is older than its flush.ms (Kafka's flushDirtyLogs task). Returns how many. */
export function flushDueLogs(logs: readonly PartitionLog[], now: number, logger: Logger): number {
  let flushed = 0;
  for (const log of logs) {
    try {
      if (log.flushIfDue(now)) flushed++;
    } catch (err) {
      logger.error({ err, topic: log.topic, partition: log.partition }, 'scheduled flush failed');
    }
  }
  return flushed;
}
