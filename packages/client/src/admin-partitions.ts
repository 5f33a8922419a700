import { ErrorCode, errorName, GregorError, KafkaProtocolError } from '@gregor/common';
import { AlterPartitionReassignments, DeleteRecords, ElectionType, ElectLeaders, ListPartitionReassignments } from '@gregor/protocol';
import type { KafkaClient } from './cluster.js';
import { retry } from '@gregor/net';

export interface TopicPartitionRef {
  topic: string;
  partition: number;
}

/** One partition's outcome: `error` null on success. */
export interface PartitionResult extends TopicPartitionRef {
  error: KafkaProtocolError | null;
}

export interface ReassignmentTarget extends TopicPartitionRef {
  /** The target replicas (first = preferred leader), or null to cancel the reassignment in progress. */
  replicas: readonly number[] | null;
}

export interface OngoingReassignment extends TopicPartitionRef {
  /** The replica set while moving: target replicas, then the original ones. */
  replicas: number[];
  addingReplicas: number[];
  removingReplicas: number[];
}

export interface DeleteRecordsResult extends PartitionResult {
  /** The partition's new low watermark (-1 on error). */
  lowWatermark: number;
}

function partitionError(topic: string, partition: number, code: number, message?: string | null): KafkaProtocolError | null {
  if (code === ErrorCode.NONE) return null;
  return new KafkaProtocolError(code, `${topic}-${partition}: ${message || errorName(code)}`);
}

function byTopic<T extends TopicPartitionRef>(items: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) out.set(item.topic, [...(out.get(item.topic) ?? []), item]);
  return out;
}

const key = (topic: string, partition: number): string => `${topic}\u0000${partition}`;

/**
 * Runs a controller request until no answer says NOT_CONTROLLER: the controller moved, so metadata is
 * refreshed and the request goes to the new one.
 */
async function onController<T>(client: KafkaClient, send: (controller: Awaited<ReturnType<KafkaClient['controller']>>) => Promise<T>, moved: (result: T) => boolean): Promise<T> {
  return retry(
    async () => {
      const result = await send(await client.controller());
      if (moved(result)) throw new KafkaProtocolError(ErrorCode.NOT_CONTROLLER, 'the controller moved');
      return result;
    },
    { ...client.retryOptions, onRetry: () => client.refreshMetadata([]).then(() => undefined, () => undefined) },
  );
}

/**
 * ElectLeaders (KIP-460): the preferred replica, or (unclean) any live replica of a partition whose
 * leader is gone. `partitions` null = every partition (those needing no election are then left out).
 */
export async function electLeaders(client: KafkaClient, type: 'preferred' | 'unclean', partitions: readonly TopicPartitionRef[] | null, timeoutMs: number): Promise<PartitionResult[]> {
  const res = await onController(
    client,
    (controller) =>
      controller.send(
        ElectLeaders,
        {
          electionType: type === 'preferred' ? ElectionType.PREFERRED : ElectionType.UNCLEAN,
          topicPartitions: partitions === null ? null : [...byTopic(partitions)].map(([topic, list]) => ({ topic, partitionId: list.map((p) => p.partition) })),
          timeoutMs,
        },
        { timeoutMs: timeoutMs + client.requestTimeoutMs },
      ),
    (r) => r.errorCode === ErrorCode.NOT_CONTROLLER || r.replicaElectionResults.some((t) => t.partitionResult.some((p) => p.errorCode === ErrorCode.NOT_CONTROLLER)),
  );
  if (res.errorCode !== undefined && res.errorCode !== ErrorCode.NONE) throw new KafkaProtocolError(res.errorCode, `ElectLeaders: ${errorName(res.errorCode)}`);
  return res.replicaElectionResults.flatMap((t) =>
    t.partitionResult.map((p) => ({ topic: t.topic, partition: p.partitionId, error: partitionError(t.topic, p.partitionId, p.errorCode, p.errorMessage) })),
  );
}

/** AlterPartitionReassignments (KIP-455): starts, replaces or (replicas null) cancels reassignments. */
export async function alterPartitionReassignments(client: KafkaClient, targets: readonly ReassignmentTarget[], timeoutMs: number): Promise<PartitionResult[]> {
  const res = await onController(
    client,
    (controller) =>
      controller.send(
        AlterPartitionReassignments,
        {
          timeoutMs,
          topics: [...byTopic(targets)].map(([name, list]) => ({ name, partitions: list.map((t) => ({ partitionIndex: t.partition, replicas: t.replicas === null ? null : [...t.replicas] })) })),
        },
        { timeoutMs: timeoutMs + client.requestTimeoutMs },
      ),
    (r) => r.errorCode === ErrorCode.NOT_CONTROLLER,
  );
  if (res.errorCode !== ErrorCode.NONE) throw new KafkaProtocolError(res.errorCode, `AlterPartitionReassignments: ${res.errorMessage ?? errorName(res.errorCode)}`);
  const answered = new Map(res.responses.flatMap((t) => t.partitions.map((p) => [key(t.name, p.partitionIndex), p] as const)));
  return targets.map((t) => {
    const p = answered.get(key(t.topic, t.partition));
    return { topic: t.topic, partition: t.partition, error: p ? partitionError(t.topic, t.partition, p.errorCode, p.errorMessage) : partitionError(t.topic, t.partition, ErrorCode.UNKNOWN_SERVER_ERROR, 'no result in the response') };
  });
}

/** ListPartitionReassignments: the reassignments in progress (of `partitions`, or all when omitted). */
export async function listPartitionReassignments(client: KafkaClient, partitions?: readonly TopicPartitionRef[], timeoutMs = 30_000): Promise<OngoingReassignment[]> {
  const res = await onController(
    client,
    (controller) =>
      controller.send(
        ListPartitionReassignments,
        { timeoutMs, topics: partitions === undefined ? null : [...byTopic(partitions)].map(([name, list]) => ({ name, partitionIndexes: list.map((p) => p.partition) })) },
        { timeoutMs: timeoutMs + client.requestTimeoutMs },
      ),
    (r) => r.errorCode === ErrorCode.NOT_CONTROLLER,
  );
  if (res.errorCode !== ErrorCode.NONE) throw new KafkaProtocolError(res.errorCode, `ListPartitionReassignments: ${res.errorMessage ?? errorName(res.errorCode)}`);
  return res.topics
    .flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex, replicas: p.replicas, addingReplicas: p.addingReplicas, removingReplicas: p.removingReplicas })))
    .sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
}

/**
 * DeleteRecords: each partition's leader moves its log start offset to `offset` (-1 = the high
 * watermark) and answers once every live replica has. Partitions whose leader moved are sent again
 * to the new leader.
 */
export async function deleteRecords(client: KafkaClient, requests: readonly (TopicPartitionRef & { offset: number })[], timeoutMs: number): Promise<DeleteRecordsResult[]> {
  const done = new Map<string, DeleteRecordsResult>();
  await retry(
    async () => {
      const pending = requests.filter((r) => !done.has(key(r.topic, r.partition)));
      await client.ensureTopics([...new Set(pending.map((r) => r.topic))]);
      const byLeader = new Map<number, typeof pending>();
      for (const r of pending) {
        let leader: number;
        try {
          leader = await client.leaderFor(r.topic, r.partition);
        } catch (error) {
          if (error instanceof GregorError && error.code === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) {
            done.set(key(r.topic, r.partition), { topic: r.topic, partition: r.partition, lowWatermark: -1, error: partitionError(r.topic, r.partition, error.code) });
            continue;
          }
          throw error;
        }
        byLeader.set(leader, [...(byLeader.get(leader) ?? []), r]);
      }
      let retriable: KafkaProtocolError | undefined;
      await Promise.all(
        [...byLeader].map(async ([leader, list]) => {
          const res = await client.sendTo(
            leader,
            DeleteRecords,
            { topics: [...byTopic(list)].map(([name, ps]) => ({ name, partitions: ps.map((p) => ({ partitionIndex: p.partition, offset: p.offset })) })), timeoutMs },
            { timeoutMs: timeoutMs + client.requestTimeoutMs },
          );
          for (const t of res.topics) {
            for (const p of t.partitions) {
              const error = partitionError(t.name, p.partitionIndex, p.errorCode);
              if (error?.retriable && p.errorCode !== ErrorCode.REQUEST_TIMED_OUT) retriable = error;
              else done.set(key(t.name, p.partitionIndex), { topic: t.name, partition: p.partitionIndex, lowWatermark: p.lowWatermark, error });
            }
          }
        }),
      );
      if (retriable) throw retriable;
    },
    { ...client.retryOptions, onRetry: () => client.refreshMetadata([...new Set(requests.map((r) => r.topic))]).then(() => undefined, () => undefined) },
  );
  return requests.map(
    (r) => done.get(key(r.topic, r.partition)) ?? { topic: r.topic, partition: r.partition, lowWatermark: -1, error: partitionError(r.topic, r.partition, ErrorCode.UNKNOWN_SERVER_ERROR, 'no result in the response') },
  );
}
