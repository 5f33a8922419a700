import { ConfigError, ErrorCode, GregorError, INTERNAL_TOPICS, topicNameProblem, type Logger } from '@gregor/common';
import { assignReplicasToBrokers, validateManualAssignment } from '@gregor/controller';
import type { KafkaZkClient } from '@gregor/zookeeper';
import type { BrokerConfig } from '../config/broker-config.js';
import { validateTopicConfig } from '../config/topic-config.js';
import type { MetadataCache } from '../metadata/metadata-cache.js';

export interface NewTopic {
  name: string;
  /** -1 = num.partitions */
  numPartitions: number;
  /** -1 = default.replication.factor */
  replicationFactor: number;
  /** partition -> brokers; when given, numPartitions and replicationFactor must be -1 */
  assignments: Map<number, number[]> | null;
  configs: Record<string, string>;
}

export interface TopicResult {
  name: string;
  errorCode: number;
  errorMessage: string | null;
}

/** A CreateTopics outcome; a success also carries the planned layout (CreateTopics v5 echoes it). */
export interface CreatedTopicResult extends TopicResult {
  numPartitions?: number;
  replicationFactor?: number;
}

/**
 * Topic administration through ZooKeeper, as Kafka's AdminManager/AdminZkClient: the broker writes
 * /config/topics/<t> and /brokers/topics/<t>, and the controller, watching those, elects leaders.
 * Answers wait (up to the request's timeout) until this broker's metadata shows the outcome.
 */
export class AdminManager {
  readonly #zk: KafkaZkClient;
  readonly #cache: MetadataCache;
  readonly #config: BrokerConfig;
  readonly #log: Logger;

  constructor(zk: KafkaZkClient, cache: MetadataCache, config: BrokerConfig, log: Logger) {
    this.#zk = zk;
    this.#cache = cache;
    this.#config = config;
    this.#log = log;
  }

  #liveBrokerIds(): number[] {
    return this.#cache.aliveBrokers().map((b) => b.id);
  }

  /** Computes and validates the assignment of a new topic; throws GregorError with Kafka's code. */
  #planTopic(t: NewTopic): Map<number, number[]> {
    const problem = topicNameProblem(t.name);
    if (problem) throw new GregorError(ErrorCode.INVALID_TOPIC_EXCEPTION, problem);
    try {
      validateTopicConfig(t.configs);
    } catch (err) {
      throw new GregorError(ErrorCode.INVALID_CONFIG, (err as ConfigError).message);
    }
    const live = this.#liveBrokerIds();
    // An empty view means no UpdateMetadata yet (startup, controller failover): retriable, not invalid.
    if (live.length === 0) throw new GregorError(ErrorCode.LEADER_NOT_AVAILABLE, 'no live brokers known yet');
    if (t.assignments && t.assignments.size > 0) {
      if (t.numPartitions !== -1 || t.replicationFactor !== -1) {
        throw new GregorError(ErrorCode.INVALID_REQUEST, 'Both numPartitions or replicationFactor and replicasAssignments were set. Both cannot be used at the same time.');
      }
      validateManualAssignment(t.assignments, new Set(live));
      return t.assignments;
    }
    const partitions = t.numPartitions === -1 ? this.#config.numPartitions : t.numPartitions;
    const rf = t.replicationFactor === -1 ? this.#config.defaultReplicationFactor : t.replicationFactor;
    return assignReplicasToBrokers(live, partitions, rf);
  }

  async createTopics(topics: NewTopic[], timeoutMs: number, validateOnly: boolean): Promise<CreatedTopicResult[]> {
    const results: CreatedTopicResult[] = [];
    const created: string[] = [];
    const expected = new Map<string, number>();
    const seen = new Set<string>();
    for (const t of topics) {
      try {
        if (seen.has(t.name)) throw new GregorError(ErrorCode.INVALID_REQUEST, `Create topics request contains ${t.name} more than once`);
        seen.add(t.name);
        const assignment = this.#planTopic(t);
        if (this.#cache.contains(t.name)) throw new GregorError(ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${t.name}' already exists.`);
        if (!validateOnly) {
          await this.#zk.createTopic(t.name, assignment, t.configs);
          created.push(t.name);
          expected.set(t.name, assignment.size);
          this.#log.info({ topic: t.name, partitions: assignment.size, replicationFactor: assignment.get(0)?.length }, 'topic created');
        }
        results.push({ name: t.name, errorCode: ErrorCode.NONE, errorMessage: null, numPartitions: assignment.size, replicationFactor: assignment.get(0)?.length ?? -1 });
      } catch (err) {
        results.push(toResult(t.name, err));
      }
    }
    // A timeout of 0 asks for no wait (Kafka answers at once with the outcome of the ZooKeeper writes).
    if (created.length > 0 && timeoutMs > 0) {
      const ready = await this.#cache.waitFor(() => created.every((name) => this.#hasLeaders(name, expected.get(name)!)), timeoutMs);
      if (!ready) {
        for (const r of results) {
          if (created.includes(r.name) && !this.#hasLeaders(r.name, expected.get(r.name)!)) {
            r.errorCode = ErrorCode.REQUEST_TIMED_OUT;
            r.errorMessage = 'Topic was created but its partitions have no leader yet';
          }
        }
      }
    }
    return results;
  }

  /** Every one of the topic's `count` partitions is known with a leader (LeaderAndIsr may arrive before the full UpdateMetadata). */
  #hasLeaders(topic: string, count: number): boolean {
    const parts = this.#cache.partitions(topic);
    return parts.length >= count && parts.every((p) => p.leader >= 0);
  }

  /** Metadata's auto-creation, with the broker's defaults. Throws TOPIC_ALREADY_EXISTS if another broker won. */
  async autoCreateTopic(name: string): Promise<void> {
    const assignment = this.#planTopic({ name, numPartitions: -1, replicationFactor: -1, assignments: null, configs: {} });
    await this.#zk.createTopic(name, assignment, {});
    this.#log.info({ topic: name, partitions: assignment.size }, 'topic auto-created');
  }

  async deleteTopics(names: string[], timeoutMs: number): Promise<TopicResult[]> {
    const results: TopicResult[] = [];
    const marked: string[] = [];
    for (const name of names) {
      try {
        const problem = topicNameProblem(name);
        if (problem) throw new GregorError(ErrorCode.INVALID_TOPIC_EXCEPTION, problem);
        if (!this.#config.deleteTopicEnable) throw new GregorError(ErrorCode.TOPIC_DELETION_DISABLED, 'Topic deletion is disabled.');
        // __consumer_offsets holds every group's committed offsets: no client may delete it.
        if (INTERNAL_TOPICS.has(name)) throw new GregorError(ErrorCode.INVALID_TOPIC_EXCEPTION, `Topic ${name} is a kafka internal topic and is not allowed to be marked for deletion.`);
        if (!this.#cache.contains(name)) throw new GregorError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic '${name}' does not exist.`);
        await this.#zk.markTopicForDeletion(name);
        marked.push(name);
        results.push({ name, errorCode: ErrorCode.NONE, errorMessage: null });
      } catch (err) {
        results.push(toResult(name, err));
      }
    }
    if (marked.length > 0 && timeoutMs > 0) {
      const done = await this.#cache.waitFor(() => marked.every((n) => !this.#cache.contains(n)), timeoutMs);
      if (!done) {
        for (const r of results) if (marked.includes(r.name) && this.#cache.contains(r.name)) r.errorCode = ErrorCode.REQUEST_TIMED_OUT;
      }
    }
    return results;
  }

  async createPartitions(
    requests: { name: string; count: number; assignments: number[][] | null }[],
    timeoutMs: number,
    validateOnly: boolean,
  ): Promise<TopicResult[]> {
    const results: TopicResult[] = [];
    const changed: { name: string; count: number }[] = [];
    for (const r of requests) {
      try {
        // ZooKeeper is the truth: a topic created a moment ago may not be in this broker's metadata yet.
        const current = await this.#zk.getTopicAssignment(r.name);
        if (!current) throw new GregorError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `The topic '${r.name}' does not exist.`);
        if (await this.#zk.isTopicMarkedForDeletion(r.name)) throw new GregorError(ErrorCode.INVALID_TOPIC_EXCEPTION, 'The topic is queued for deletion.');
        // The controller rewrites this znode while partitions move (KIP-455); adding partitions then would race it.
        if (current.assignment.addingReplicas.size > 0 || current.assignment.removingReplicas.size > 0) {
          throw new GregorError(ErrorCode.REASSIGNMENT_IN_PROGRESS, `A partition reassignment is in progress for the topic '${r.name}'.`);
        }
        const existing = current.assignment.partitions;
        const have = existing.size;
        if (r.count <= have) {
          throw new GregorError(ErrorCode.INVALID_PARTITIONS, `Topic currently has ${have} partitions, which is higher than the requested ${r.count}.`);
        }
        const rf = existing.get(0)?.length ?? 1;
        const live = this.#liveBrokerIds();
        let added: Map<number, number[]>;
        if (r.assignments) {
          if (r.assignments.length !== r.count - have) {
            throw new GregorError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `Increasing the number of partitions by ${r.count - have} but ${r.assignments.length} assignments provided.`);
          }
          added = new Map(r.assignments.map((a, i) => [have + i, a]));
          const check = new Map<number, number[]>([...existing, ...added]);
          validateManualAssignment(check, new Set([...live, ...[...existing.values()].flat()]));
          for (const a of added.values()) {
            if (a.length !== rf) throw new GregorError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `Inconsistent replication factor between partitions, partition 0 has ${rf}`);
          }
        } else {
          added = assignReplicasToBrokers(live, r.count - have, rf, { startPartitionId: have });
        }
        if (!validateOnly) {
          const next = new Map<number, number[]>([...existing, ...added]);
          await this.#zk.setTopicAssignment(r.name, next, current.zkVersion);
          changed.push({ name: r.name, count: r.count });
        }
        results.push({ name: r.name, errorCode: ErrorCode.NONE, errorMessage: null });
      } catch (err) {
        results.push(toResult(r.name, err));
      }
    }
    if (changed.length > 0 && timeoutMs > 0) {
      const ok = () => changed.every((c) => this.#cache.partitions(c.name).filter((p) => p.leader >= 0).length >= c.count);
      if (!(await this.#cache.waitFor(ok, timeoutMs))) {
        for (const r of results) if (changed.some((c) => c.name === r.name)) r.errorCode = ErrorCode.REQUEST_TIMED_OUT;
      }
    }
    return results;
  }
}

function toResult(name: string, err: unknown): TopicResult {
  if (err instanceof GregorError) return { name, errorCode: err.code, errorMessage: err.message };
  return { name, errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: (err as Error).message };
}
