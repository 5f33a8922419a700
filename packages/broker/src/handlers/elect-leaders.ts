import { ErrorCode } from '@gregor/common';
import type { LeaderElectionOutcome } from '@gregor/controller';
import type { ElectLeadersReplicaElectionResult, ElectLeadersRequest, ElectLeadersResponse } from '@gregor/protocol';
import type { BrokerServices } from '../broker-services.js';
import type { ApiHandler } from '../kafka-apis.js';

/**
 * ElectLeaders (KIP-460) as Kafka 2.4 serves it: the election runs as an event of this broker's
 * controller (NOT_CONTROLLER per partition when it is not the active one; clients send it to the
 * controller named in Metadata); the answer waits until this broker's metadata shows each new leader,
 * up to timeout_ms (then REQUEST_TIMED_OUT). With null partitions (all), partitions that needed no
 * election are left out of the answer.
 */
export function electLeadersHandler(s: BrokerServices): ApiHandler<ElectLeadersRequest, ElectLeadersResponse> {
  return async (req) => {
    const deadline = Date.now() + Math.max(0, req.timeoutMs);
    const partitions =
      req.topicPartitions === null
        ? s.metadataCache.allTopics().flatMap((topic) => s.metadataCache.partitions(topic).map((p) => ({ topic, partition: p.partition })))
        : req.topicPartitions.flatMap((t) => t.partitionId.map((partition) => ({ topic: t.topic, partition })));
    const outcomes = await s.controller.electLeaders(req.electionType ?? 0, partitions);
    const elected = outcomes.filter((o) => o.errorCode === ErrorCode.NONE && o.leader !== undefined);
    const shows = (o: LeaderElectionOutcome) => s.metadataCache.partition(o.topic, o.partition)?.leader === o.leader;
    if (elected.length > 0) await s.metadataCache.waitFor(() => elected.every(shows), deadline - Date.now());
    const byTopic = new Map<string, ElectLeadersReplicaElectionResult>();
    for (const o of outcomes) {
      if (req.topicPartitions === null && o.errorCode === ErrorCode.ELECTION_NOT_NEEDED) continue;
      const timedOut = o.errorCode === ErrorCode.NONE && !shows(o);
      let t = byTopic.get(o.topic);
      if (!t) byTopic.set(o.topic, (t = { topic: o.topic, partitionResult: [] }));
      t.partitionResult.push({
        partitionId: o.partition,
        errorCode: timedOut ? ErrorCode.REQUEST_TIMED_OUT : o.errorCode,
        errorMessage: timedOut ? null : o.errorMessage,
      });
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, replicaElectionResults: [...byTopic.values()] };
  };
}
