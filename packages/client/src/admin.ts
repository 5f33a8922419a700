import { ErrorCode, GregorError, KafkaProtocolError, TimeoutError, errorName, sleep } from '@gregor/common';
import { CreatePartitions, CreateTopics, DeleteTopics } from '@gregor/protocol';
import type { ClusterMetadata, KafkaClient, TopicMetadata } from './cluster.js';
import { alterConfigs, describeConfigs, incrementalAlterConfigs, type AlterConfigsResult, type ConfigDescription, type ConfigOperation, type ConfigResource } from './admin-configs.js';
import { createAcls, deleteAcls, describeAcls, ANY_ACL_BINDING, type AclBinding, type AclBindingFilter, type CreateAclResult, type DeleteAclsResult } from './admin-acls.js';
import { deleteGroups, describeGroups, fetchOffsets, listGroups, resetOffsets, type GroupDescription, type GroupListing, type GroupOffset, type GroupResult } from './admin-groups.js';
import {
  alterPartitionReassignments,
  deleteRecords,
  electLeaders,
  listPartitionReassignments,
  type DeleteRecordsResult,
  type OngoingReassignment,
  type PartitionResult,
  type ReassignmentTarget,
  type TopicPartitionRef,
} from './admin-partitions.js';
import { listOffsets, type OffsetQuery, type PartitionOffset } from './offsets.js';
import { retry } from '@gregor/net';

export interface NewTopic {
  name: string;
  /** -1 lets the broker use its num.partitions (needs CreateTopics v4). */
  numPartitions: number;
  replicationFactor: number;
  /** partition → broker ids; when given, numPartitions and replicationFactor must be -1. */
  replicaAssignment?: ReadonlyMap<number, readonly number[]> | Record<number, readonly number[]>;
  configs?: Record<string, string | null>;
}

export interface NewPartitions {
  topic: string;
  /** The new total number of partitions. */
  count: number;
  /** Replicas of each added partition, in order. */
  assignments?: readonly (readonly number[])[];
}

export interface AdminOptions {
  /** How long the controller waits for the operation to finish (leaders elected, topics deleted). Default 30000. */
  timeoutMs?: number;
  validateOnly?: boolean;
}

/** The outcome for one topic: errorCode 0 on success, else `error` explains. */
export interface TopicResult {
  name: string;
  errorCode: number;
  errorMessage: string | null;
  error: KafkaProtocolError | null;
}

function topicResult(name: string, errorCode: number, errorMessage: string | null | undefined): TopicResult {
  const message = errorMessage ?? null;
  const error = errorCode === ErrorCode.NONE ? null : new KafkaProtocolError(errorCode, `${name}: ${message ?? errorName(errorCode)}`);
  return { name, errorCode, errorMessage: message, error };
}

function assignmentEntries(a: NewTopic['replicaAssignment']): [number, readonly number[]][] {
  if (!a) return [];
  const entries = a instanceof Map ? [...a] : Object.entries(a).map(([k, v]) => [Number(k), v] as [number, readonly number[]]);
  return entries.sort((x, y) => x[0] - y[0]);
}

/**
 * Topic administration. Create/delete/partition requests go to the controller, which is the only
 * broker allowed to change topics; a NOT_CONTROLLER answer (the controller moved) is retried
 * against the new controller after a metadata refresh.
 */
export class Admin {
  readonly #client: KafkaClient;

  constructor(client: KafkaClient) {
    this.#client = client;
  }

  async createTopics(topics: readonly NewTopic[], options: AdminOptions = {}): Promise<TopicResult[]> {
    const timeoutMs = options.timeoutMs ?? 30_000;
    const byName = new Map(topics.map((t) => [t.name, t]));
    return this.#onController(topics.map((t) => t.name), async (connection, names) => {
      const response = await connection.send(
        CreateTopics,
        {
          topics: names.map((name) => {
            const t = byName.get(name)!;
            const assignments = assignmentEntries(t.replicaAssignment);
            return {
              name,
              numPartitions: assignments.length > 0 ? -1 : t.numPartitions,
              replicationFactor: assignments.length > 0 ? -1 : t.replicationFactor,
              assignments: assignments.map(([partitionIndex, brokerIds]) => ({ partitionIndex, brokerIds: [...brokerIds] })),
              configs: Object.entries(t.configs ?? {}).map(([configName, value]) => ({ name: configName, value })),
            };
          }),
          timeoutMs,
          validateOnly: options.validateOnly ?? false,
        },
        { timeoutMs: timeoutMs + this.#client.requestTimeoutMs },
      );
      return response.topics.map((t) => topicResult(t.name, t.errorCode, t.errorMessage));
    });
  }

  async deleteTopics(names: readonly string[], options: Pick<AdminOptions, 'timeoutMs'> = {}): Promise<TopicResult[]> {
    const timeoutMs = options.timeoutMs ?? 30_000;
    return this.#onController(names, async (connection, pending) => {
      const response = await connection.send(
        DeleteTopics,
        { topicNames: pending, timeoutMs },
        { timeoutMs: timeoutMs + this.#client.requestTimeoutMs },
      );
      return response.responses.map((t) => topicResult(t.name, t.errorCode, null));
    });
  }

  async createPartitions(changes: readonly NewPartitions[], options: AdminOptions = {}): Promise<TopicResult[]> {
    const timeoutMs = options.timeoutMs ?? 30_000;
    const byName = new Map(changes.map((c) => [c.topic, c]));
    return this.#onController([...byName.keys()], async (connection, pending) => {
      const response = await connection.send(
        CreatePartitions,
        {
          topics: pending.map((name) => {
            const c = byName.get(name)!;
            return { name, count: c.count, assignments: c.assignments ? c.assignments.map((brokerIds) => ({ brokerIds: [...brokerIds] })) : null };
          }),
          timeoutMs,
          validateOnly: options.validateOnly ?? false,
        },
        { timeoutMs: timeoutMs + this.#client.requestTimeoutMs },
      );
      return response.results.map((r) => topicResult(r.name, r.errorCode, r.errorMessage));
    });
  }

  /** Sends to the controller; topics answered NOT_CONTROLLER are sent again to the new one. */
  async #onController(
    names: readonly string[],
    send: (connection: Awaited<ReturnType<KafkaClient['controller']>>, names: string[]) => Promise<TopicResult[]>,
  ): Promise<TopicResult[]> {
    const results = new Map<string, TopicResult>();
    await retry(
      async () => {
        const pending = names.filter((n) => !results.has(n));
        const connection = await this.#client.controller();
        let moved: GregorError | undefined;
        for (const r of await send(connection, pending)) {
          if (r.errorCode === ErrorCode.NOT_CONTROLLER) moved = r.error!;
          else results.set(r.name, r);
        }
        if (moved) throw moved;
      },
      { ...this.#client.retryOptions, onRetry: () => this.#client.refreshMetadata([]).then(() => undefined, () => undefined) },
    );
    return names.map((n) => results.get(n) ?? topicResult(n, ErrorCode.UNKNOWN_SERVER_ERROR, 'no result in the response'));
  }

  /** The cluster as Metadata shows it: id, controller and live brokers (AdminClient.describeCluster). */
  async describeCluster(): Promise<Pick<ClusterMetadata, 'clusterId' | 'controllerId' | 'brokers'>> {
    const { clusterId, controllerId, brokers } = await this.#client.refreshMetadata([]);
    return { clusterId, controllerId, brokers: [...brokers].sort((a, b) => a.nodeId - b.nodeId) };
  }

  /** Names of all topics in the cluster. */
  async listTopics(): Promise<string[]> {
    const metadata = await this.#client.refreshMetadata();
    return metadata.topics.filter((t) => t.errorCode === ErrorCode.NONE || t.errorCode === ErrorCode.LEADER_NOT_AVAILABLE).map((t) => t.name).sort();
  }

  /** Fresh metadata of the given topics (all when omitted); unknown topics come back with their error code. */
  async describeTopics(names?: readonly string[]): Promise<TopicMetadata[]> {
    const metadata = await this.#client.refreshMetadata(names);
    return metadata.topics.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** ListOffsets: timestamp -1 = latest (log end offset), -2 = earliest, else the first offset at or after it. */
  async listOffsets(topic: string, partition: number, timestamp: number): Promise<PartitionOffset> {
    return (await listOffsets(this.#client, topic, [{ partition, timestamp }])).get(partition)!;
  }

  /** ListOffsets for several partitions of a topic (one request per leader). */
  async listPartitionOffsets(topic: string, queries: readonly OffsetQuery[]): Promise<Map<number, PartitionOffset>> {
    return listOffsets(this.#client, topic, queries);
  }

  /** DescribeConfigs (with synonyms) of topics and brokers; each result carries its entries or its error. */
  describeConfigs(resources: readonly ConfigResource[]): Promise<ConfigDescription[]> {
    return describeConfigs(this.#client, resources);
  }

  /** AlterConfigs: replaces each resource's whole set of overrides. */
  alterConfigs(changes: readonly { resource: ConfigResource; configs: Record<string, string | null> }[], options: Pick<AdminOptions, 'validateOnly'> = {}): Promise<AlterConfigsResult[]> {
    return alterConfigs(this.#client, changes, options.validateOnly);
  }

  /** IncrementalAlterConfigs: sets or deletes single configs, leaving the others. */
  incrementalAlterConfigs(changes: readonly { resource: ConfigResource; ops: readonly ConfigOperation[] }[], options: Pick<AdminOptions, 'validateOnly'> = {}): Promise<AlterConfigsResult[]> {
    return incrementalAlterConfigs(this.#client, changes, options.validateOnly);
  }

  /** ElectLeaders at the controller; `partitions` null = all. Default timeout 60000 as Kafka's. */
  electLeaders(type: 'preferred' | 'unclean', partitions: readonly TopicPartitionRef[] | null, options: Pick<AdminOptions, 'timeoutMs'> = {}): Promise<PartitionResult[]> {
    return electLeaders(this.#client, type, partitions, options.timeoutMs ?? 60_000);
  }

  /** AlterPartitionReassignments at the controller (replicas null cancels). */
  alterPartitionReassignments(targets: readonly ReassignmentTarget[], options: Pick<AdminOptions, 'timeoutMs'> = {}): Promise<PartitionResult[]> {
    return alterPartitionReassignments(this.#client, targets, options.timeoutMs ?? 60_000);
  }

  /** Reassignments in progress (of the given partitions, or all). */
  listPartitionReassignments(partitions?: readonly TopicPartitionRef[]): Promise<OngoingReassignment[]> {
    return listPartitionReassignments(this.#client, partitions);
  }

  /** DeleteRecords: moves each partition's log start offset up to `offset` (-1 = high watermark). */
  deleteRecords(requests: readonly (TopicPartitionRef & { offset: number })[], options: Pick<AdminOptions, 'timeoutMs'> = {}): Promise<DeleteRecordsResult[]> {
    return deleteRecords(this.#client, requests, options.timeoutMs ?? 30_000);
  }

  /** Coordinator groups of every broker (ListGroups), with the brokers that did not answer. */
  listGroups(): Promise<GroupListing> {
    return listGroups(this.#client);
  }

  /** DescribeGroups at each group's coordinator. */
  describeGroups(groupIds: readonly string[]): Promise<GroupDescription[]> {
    return describeGroups(this.#client, groupIds);
  }

  /** The group's committed offsets (OffsetFetch of all partitions). */
  fetchOffsets(groupId: string): Promise<GroupOffset[]> {
    return fetchOffsets(this.#client, groupId);
  }

  /** Commits offsets for an inactive group (the coordinator refuses while it has members). */
  resetOffsets(groupId: string, offsets: readonly { topic: string; partition: number; offset: number }[]): Promise<void> {
    return resetOffsets(this.#client, groupId, offsets);
  }

  /** DeleteGroups: each group's result. */
  deleteGroups(groupIds: readonly string[]): Promise<GroupResult[]> {
    return deleteGroups(this.#client, groupIds);
  }

  /** CreateAcls at any broker: one result per binding, in order (`error` is the broker's refusal of that binding). */
  createAcls(bindings: readonly AclBinding[]): Promise<CreateAclResult[]> {
    return createAcls(this.#client, bindings);
  }

  /** DescribeAcls: the bindings matching the filter (default: all); throws the broker's error (e.g. SECURITY_DISABLED). */
  describeAcls(filter: AclBindingFilter = ANY_ACL_BINDING): Promise<AclBinding[]> {
    return describeAcls(this.#client, filter);
  }

  /** DeleteAcls: per filter, the bindings it removed or its error. */
  deleteAcls(filters: readonly AclBindingFilter[]): Promise<DeleteAclsResult[]> {
    return deleteAcls(this.#client, filters);
  }

  /** Polls metadata until every partition of the topics has a leader (new topics elect them asynchronously). */
  async waitForLeaders(names: readonly string[], timeoutMs = 30_000, signal?: AbortSignal): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const metadata = await this.#client.refreshMetadata(names);
      const ready = names.every((name) => {
        const t = metadata.topics.find((x) => x.name === name);
        return t !== undefined && t.errorCode === ErrorCode.NONE && t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0);
      });
      if (ready) return;
      if (Date.now() >= deadline) throw new TimeoutError(`leaders of ${names.join(', ')} not elected within ${timeoutMs} ms`);
      await sleep(100, signal);
      if (signal?.aborted) throw new TimeoutError('waitForLeaders aborted');
    }
  }
}
