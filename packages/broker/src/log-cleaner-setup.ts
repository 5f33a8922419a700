import type { Logger } from '@gregor/common';
import { decompressionCap } from '@gregor/protocol';
import { DEFAULT_DELETE_RETENTION_MS, LogCleaner, type LogManager } from '@gregor/storage';
import type { BrokerConfig } from './config/broker-config.js';
import type { TopicConfigCache } from './config/topic-config-cache.js';

/** Kafka's log.cleaner.backoff.ms default: how often compacted logs are looked at. */
const LOG_CLEANER_BACKOFF_MS = 15_000;

/** Starts log compaction for every hosted topic whose `cleanup.policy` (override or `log.cleanup.policy`) has `compact`. */
export function startLogCleaner(config: BrokerConfig, logManager: LogManager, topicConfigs: TopicConfigCache, logger: Logger): LogCleaner {
  const cleaner = new LogCleaner({
    logs: () => logManager.allLogs(),
    isCompacted: (topic) => {
      const policy = topicConfigs.overrides(topic)['cleanup.policy'];
      return policy !== undefined ? policy.split(',').map((p) => p.trim()).includes('compact') : config.logCleanupPolicy.includes('compact');
    },
    deleteRetentionMs: (topic) => {
      const v = topicConfigs.overrides(topic)['delete.retention.ms'];
      return v !== undefined ? Number(v) : DEFAULT_DELETE_RETENTION_MS;
    },
    // A batch may inflate to the larger of the topic's max.message.bytes and 50 MiB.
    maxDecompressedBytes: (topic) => decompressionCap(topicConfigs.get(topic).maxMessageBytes),
    intervalMs: LOG_CLEANER_BACKOFF_MS,
    logger,
  });
  cleaner.startup();
  return cleaner;
}
