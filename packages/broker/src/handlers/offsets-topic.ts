import { ErrorCode } from '@gregor/common';
import { OFFSETS_TOPIC } from '@gregor/coordinator';
import type { GroupServices } from './group-services.js';

/** Kafka's offsets.topic.segment.bytes default. */
const OFFSETS_TOPIC_SEGMENT_BYTES = 104857600;

/**
 * Creates `__consumer_offsets` on first use (compacted, `offsets.topic.num.partitions` partitions). With fewer
 * live brokers than `offsets.topic.replication.factor` the factor is clamped to the live count, with a warning.
 */
export async function createOffsetsTopic(s: GroupServices): Promise<void> {
  const live = s.metadataCache.aliveBrokers().length;
  if (live === 0) return;
  const wanted = s.config.offsetsTopicReplicationFactor;
  const replicationFactor = Math.min(wanted, live);
  if (replicationFactor < wanted) {
    s.log.warn(
      { wanted, live, replicationFactor },
      `offsets.topic.replication.factor ${wanted} exceeds the ${live} live broker(s): creating ${OFFSETS_TOPIC} with replication factor ${replicationFactor}`,
    );
  }
  const [result] = await s.adminManager.createTopics(
    [
      {
        name: OFFSETS_TOPIC,
        numPartitions: s.config.offsetsTopicNumPartitions,
        replicationFactor,
        assignments: null,
        // retention.ms=-1: a compacted topic is never trimmed by time (the log manager's retention does not know compaction).
        configs: { 'cleanup.policy': 'compact', 'segment.bytes': String(OFFSETS_TOPIC_SEGMENT_BYTES), 'compression.type': 'producer', 'retention.ms': '-1' },
      },
    ],
    0,
    false,
  );
  if (result && result.errorCode !== ErrorCode.NONE && result.errorCode !== ErrorCode.TOPIC_ALREADY_EXISTS && result.errorCode !== ErrorCode.REQUEST_TIMED_OUT) {
    s.log.warn({ errorCode: result.errorCode, message: result.errorMessage }, `creating ${OFFSETS_TOPIC} failed`);
  }
}
