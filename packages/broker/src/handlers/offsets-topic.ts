import { ErrorCode } from '@gregor/common';
import { OFFSETS_TOPIC } from '@gregor/coordinator';
import type { GroupServices } from './group-services.js';

/** Kafka's offsets.topic.segment.bytes default. */
const OFFSETS_TOPIC_SEGMENT_BYTES = 104857600;

/**
 * Creates `__consumer_offsets` on first use (compacted, `offsets.topic.num.partitions` partitions,
 * `offsets.topic.replication.factor` replicas). As Kafka ≥ 0.11 does, it is never created with fewer replicas
 * than configured: with fewer live brokers nothing is created and `false` is returned, so FindCoordinator
 * answers COORDINATOR_NOT_AVAILABLE until enough brokers are up (a cluster still starting).
 */
export async function createOffsetsTopic(s: GroupServices): Promise<boolean> {
  const live = s.metadataCache.aliveBrokers().length;
  const replicationFactor = s.config.offsetsTopicReplicationFactor;
  if (live < replicationFactor) {
    s.log.error(
      { live, replicationFactor },
      `Number of alive brokers '${live}' does not meet the required replication factor '${replicationFactor}' for the offsets topic ` +
        `(configured via 'offsets.topic.replication.factor'). This error can be ignored if the cluster is starting up and not all brokers are up yet.`,
    );
    return false;
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
  return true;
}
