import { ErrorCode, GregorError, KafkaProtocolError, type Logger } from '@gregor/common';
import { Heartbeat, JoinGroup, LeaveGroup, SyncGroup, type JoinGroupResponse } from '@gregor/protocol';
import { assignorByName, type Assignor } from './assignors.js';
import type { KafkaClient } from './cluster.js';
import { CONSUMER_PROTOCOL_TYPE, decodeAssignment, decodeSubscription, encodeAssignment, encodeSubscription } from './consumer-protocol.js';
import { COORDINATOR_ERRORS, findGroupCoordinator } from './group-coordinator-lookup.js';

/** One generation of the group as this member sees it. */
export interface Generation {
  generationId: number;
  memberId: string;
  coordinator: number;
  isLeader: boolean;
  protocol: string;
  /** topic → partitions assigned to this member */
  assignment: Map<string, number[]>;
}

export interface GroupMembershipConfig {
  groupId: string;
  topics: readonly string[];
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  /** Offered in this order; the coordinator picks one every member supports. */
  balancers: readonly string[];
  logger: Logger;
}

/**
 * The consumer side of the group protocol (kafka-go's consumer group): FindCoordinator, JoinGroup (rejoining
 * with the id a MEMBER_ID_REQUIRED answer hands out), the leader's assignment, SyncGroup, Heartbeat, LeaveGroup.
 */
export class GroupMembership {
  readonly #client: KafkaClient;
  readonly #config: GroupMembershipConfig;
  readonly #assignors: Assignor[];
  memberId = '';
  #coordinator = -1;

  constructor(client: KafkaClient, config: GroupMembershipConfig) {
    this.#client = client;
    this.#config = config;
    this.#assignors = config.balancers.map(assignorByName);
  }

  async #coordinatorNode(signal?: AbortSignal): Promise<number> {
    if (this.#coordinator < 0) this.#coordinator = await findGroupCoordinator(this.#client, this.#config.groupId, signal);
    return this.#coordinator;
  }

  /** After a coordinator error the next request looks the coordinator up again. */
  #check(code: number, what: string): void {
    if (code === ErrorCode.NONE) return;
    if (COORDINATOR_ERRORS.has(code)) this.#coordinator = -1;
    if (code === ErrorCode.UNKNOWN_MEMBER_ID) this.memberId = '';
    throw new KafkaProtocolError(code, `${what} for group ${this.#config.groupId}`);
  }

  #noteNetworkError(error: unknown): void {
    if (error instanceof GregorError && COORDINATOR_ERRORS.has(error.code)) this.#coordinator = -1;
  }

  /** Joins (or rejoins) and syncs: one new generation, or a thrown error to back off from. */
  async join(signal?: AbortSignal): Promise<Generation> {
    const c = this.#config;
    try {
      const coordinator = await this.#coordinatorNode(signal);
      const metadata = encodeSubscription({ version: 0, topics: [...c.topics], userData: null });
      let joined: JoinGroupResponse | undefined;
      for (let attempt = 0; attempt < 2 && !joined; attempt++) {
        const res = await this.#client.sendTo(
          coordinator,
          JoinGroup,
          {
            groupId: c.groupId,
            sessionTimeoutMs: c.sessionTimeoutMs,
            rebalanceTimeoutMs: c.rebalanceTimeoutMs,
            memberId: this.memberId,
            groupInstanceId: null,
            protocolType: CONSUMER_PROTOCOL_TYPE,
            protocols: this.#assignors.map((a) => ({ name: a.name, metadata })),
          },
          { timeoutMs: c.rebalanceTimeoutMs + 5000 },
        );
        if (res.errorCode === ErrorCode.MEMBER_ID_REQUIRED) {
          this.memberId = res.memberId;
          continue;
        }
        this.#check(res.errorCode, 'JoinGroup');
        joined = res;
      }
      if (!joined) throw new KafkaProtocolError(ErrorCode.MEMBER_ID_REQUIRED, 'JoinGroup kept asking for a member id');
      this.memberId = joined.memberId;
      const isLeader = joined.leader === joined.memberId;
      const assignments = isLeader ? await this.#assign(joined) : [];
      const synced = await this.#client.sendTo(
        coordinator,
        SyncGroup,
        { groupId: c.groupId, generationId: joined.generationId, memberId: this.memberId, groupInstanceId: null, assignments },
        { timeoutMs: c.rebalanceTimeoutMs + 5000 },
      );
      this.#check(synced.errorCode, 'SyncGroup');
      const assignment = decodeAssignment(synced.assignment).partitions;
      c.logger.info({ group: c.groupId, generation: joined.generationId, memberId: this.memberId, isLeader, protocol: joined.protocolName, assignment: Object.fromEntries(assignment) }, 'joined group');
      return { generationId: joined.generationId, memberId: this.memberId, coordinator, isLeader, protocol: joined.protocolName, assignment };
    } catch (error) {
      this.#noteNetworkError(error);
      throw error;
    }
  }

  /** The leader's job: decode subscriptions, read partition counts, run the chosen assignor. */
  async #assign(joined: JoinGroupResponse) {
    const assignor = this.#assignors.find((a) => a.name === joined.protocolName);
    if (!assignor) throw new KafkaProtocolError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, `coordinator chose ${joined.protocolName}, which this member did not offer`);
    const members = joined.members.map((m) => ({ memberId: m.memberId, topics: decodeSubscription(m.metadata).topics }));
    const topics = [...new Set(members.flatMap((m) => m.topics))];
    await this.#client.refreshMetadata(topics);
    const counts = new Map<string, number>();
    for (const t of topics) {
      const md = this.#client.topic(t);
      if (md && md.partitions.length > 0) counts.set(t, md.partitions.length);
    }
    const plan = assignor.assign(members, counts);
    return [...plan].map(([memberId, partitions]) => ({ memberId, assignment: encodeAssignment({ version: 0, partitions, userData: null }) }));
  }

  /** One heartbeat; returns the error code (REBALANCE_IN_PROGRESS means: rejoin). */
  async heartbeat(gen: Generation): Promise<number> {
    try {
      const res = await this.#client.sendTo(gen.coordinator, Heartbeat, {
        groupId: this.#config.groupId,
        generationId: gen.generationId,
        memberId: gen.memberId,
        groupInstanceId: null,
      });
      if (COORDINATOR_ERRORS.has(res.errorCode)) this.#coordinator = -1;
      if (res.errorCode === ErrorCode.UNKNOWN_MEMBER_ID) this.memberId = '';
      return res.errorCode;
    } catch (error) {
      this.#noteNetworkError(error);
      return error instanceof GregorError ? error.code : ErrorCode.UNKNOWN_SERVER_ERROR;
    }
  }

  /** LeaveGroup so the others rebalance at once instead of waiting for our session to expire. */
  async leave(): Promise<void> {
    if (this.memberId === '' || this.#coordinator < 0) return;
    try {
      await this.#client.sendTo(this.#coordinator, LeaveGroup, { groupId: this.#config.groupId, memberId: this.memberId, members: [{ memberId: this.memberId, groupInstanceId: null }] }, { timeoutMs: 5000 });
    } catch (error) {
      this.#config.logger.warn({ group: this.#config.groupId, err: (error as Error).message }, 'LeaveGroup failed');
    }
    this.memberId = '';
  }
}
