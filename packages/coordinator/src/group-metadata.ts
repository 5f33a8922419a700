import { Reader } from '@gregor/protocol';
import type { OffsetAndMetadata } from './records.js';
import type { MemberMetadata, Protocol } from './member-metadata.js';

export type GroupState = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable' | 'Dead';

/** Kafka's GroupMetadata.validPreviousStates. */
const VALID_PREVIOUS: Record<GroupState, readonly GroupState[]> = {
  Empty: ['PreparingRebalance'],
  PreparingRebalance: ['Stable', 'CompletingRebalance', 'Empty'],
  CompletingRebalance: ['PreparingRebalance'],
  Stable: ['CompletingRebalance'],
  Dead: ['Stable', 'PreparingRebalance', 'CompletingRebalance', 'Empty', 'Dead'],
};

const CONSUMER_PROTOCOL_TYPE = 'consumer';

/**
 * The topics of a consumer's JoinGroup metadata: every ConsumerProtocol version starts with v0's
 * `version i16, topics [string]`, so only that prefix is read (as Kafka's computeSubscribedTopics does).
 */
function subscriptionTopics(metadata: Buffer): string[] {
  const r = new Reader(metadata);
  r.int16();
  return r.array((r) => r.string(), 2);
}

export function offsetKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

/**
 * One consumer group held by its coordinator (Kafka's GroupMetadata): members, generation, selected protocol,
 * leader, and the committed offsets. State changes go through `transitionTo`, which enforces Kafka's graph.
 */
export class GroupMetadata {
  readonly groupId: string;
  state: GroupState;
  protocolType: string | null = null;
  generationId = 0;
  protocolName: string | null = null;
  leaderId: string | null = null;
  currentStateTimestamp: number;
  readonly members = new Map<string, MemberMetadata>();
  /** Static members (KIP-345): group.instance.id -> the member id it currently holds. */
  readonly staticMembers = new Map<string, string>();
  /** Members given an id with MEMBER_ID_REQUIRED that have not joined with it yet. */
  readonly pendingMembers = new Map<string, NodeJS.Timeout>();
  readonly offsets = new Map<string, { topic: string; partition: number; value: OffsetAndMetadata }>();
  /**
   * Topics the members of a consumer group subscribe to, fixed when a generation starts (Kafka's subscribedTopics);
   * null when unknown (not a consumer group, or metadata that does not parse).
   */
  subscribedTopics: ReadonlySet<string> | null = null;
  /** A member joined during the initial delay, so the delay is extended. */
  newMemberAdded = false;
  /** The delayed join of the rebalance in progress. */
  joinTimer: NodeJS.Timeout | undefined;
  /** InitialDelayedJoin: time left of the rebalance timeout. */
  initialDelayRemainingMs = 0;

  constructor(groupId: string, state: GroupState = 'Empty', now = Date.now()) {
    this.groupId = groupId;
    this.state = state;
    this.currentStateTimestamp = now;
  }

  is(state: GroupState): boolean {
    return this.state === state;
  }

  transitionTo(state: GroupState): void {
    if (!VALID_PREVIOUS[state].includes(this.state)) {
      throw new Error(`group ${this.groupId}: illegal transition ${this.state} -> ${state}`);
    }
    this.state = state;
    this.currentStateTimestamp = Date.now();
  }

  canRebalance(): boolean {
    return VALID_PREVIOUS.PreparingRebalance.includes(this.state);
  }

  add(member: MemberMetadata): void {
    if (this.members.size === 0) this.protocolType = member.protocolType;
    if (this.leaderId === null) this.leaderId = member.memberId;
    this.members.set(member.memberId, member);
    if (member.groupInstanceId !== null) this.staticMembers.set(member.groupInstanceId, member.memberId);
  }

  /** Removes a member (and its static instance); a departed leader is replaced by any remaining member. */
  remove(memberId: string): void {
    const member = this.members.get(memberId);
    this.members.delete(memberId);
    const instanceId = member?.groupInstanceId ?? null;
    if (instanceId !== null && this.staticMembers.get(instanceId) === memberId) this.staticMembers.delete(instanceId);
    if (this.leaderId === memberId) this.leaderId = this.members.size > 0 ? this.members.keys().next().value! : null;
  }

  hasStaticMember(groupInstanceId: string | null): groupInstanceId is string {
    return groupInstanceId !== null && this.staticMembers.has(groupInstanceId);
  }

  /**
   * Kafka's isStaticMemberFenced: the request names a known group.instance.id but a member id that is not the
   * one the instance holds now (an older incarnation of a restarted instance, or a duplicate): FENCED_INSTANCE_ID.
   */
  isStaticMemberFenced(memberId: string, groupInstanceId: string | null): boolean {
    return this.hasStaticMember(groupInstanceId) && this.staticMembers.get(groupInstanceId) !== memberId;
  }

  /** A static member rejoining with an unknown id takes a new member id and keeps its place (and leadership). */
  replaceStaticMember(oldMemberId: string, newMemberId: string): MemberMetadata {
    const member = this.members.get(oldMemberId);
    if (!member || member.groupInstanceId === null) throw new Error(`group ${this.groupId}: cannot replace ${oldMemberId}, not a static member`);
    this.members.delete(oldMemberId);
    member.memberId = newMemberId;
    this.members.set(newMemberId, member);
    if (this.leaderId === oldMemberId) this.leaderId = newMemberId;
    this.staticMembers.set(member.groupInstanceId, newMemberId);
    return member;
  }

  /**
   * Kafka's maybeElectNewJoinedLeader: a leader that did not rejoin (a static member may stay without rejoining)
   * hands leadership to any member that did. False when there is no leader or nobody rejoined.
   */
  maybeElectNewJoinedLeader(): boolean {
    if (this.leaderId === null) return false;
    if (this.members.get(this.leaderId)?.isAwaitingJoin) return true;
    for (const m of this.members.values()) {
      if (m.isAwaitingJoin) {
        this.leaderId = m.memberId;
        return true;
      }
    }
    return false;
  }

  isLeader(memberId: string): boolean {
    return this.leaderId === memberId;
  }

  numAwaitingJoin(): number {
    let n = 0;
    for (const m of this.members.values()) if (m.isAwaitingJoin) n++;
    return n;
  }

  hasAllMembersJoined(): boolean {
    return this.members.size === this.numAwaitingJoin() && this.pendingMembers.size === 0;
  }

  /** Max of the members' rebalance timeouts (how long a rebalance may wait for rejoins). */
  rebalanceTimeoutMs(): number {
    let t = 0;
    for (const m of this.members.values()) t = Math.max(t, m.rebalanceTimeoutMs);
    return t;
  }

  /** Protocols every member supports. */
  candidateProtocols(): Set<string> {
    let common: Set<string> | undefined;
    for (const m of this.members.values()) {
      const ps = m.protocols();
      const previous: Set<string> | undefined = common;
      common = previous === undefined ? ps : new Set([...previous].filter((p) => ps.has(p)));
    }
    return common ?? new Set<string>();
  }

  /** A joining member is compatible when its type matches and it shares a protocol with every member. */
  supportsProtocols(protocolType: string, protocols: readonly Protocol[]): boolean {
    if (this.members.size === 0) return protocolType.length > 0 && protocols.length > 0;
    if (protocolType !== this.protocolType) return false;
    const candidates = this.candidateProtocols();
    return protocols.some((p) => candidates.has(p.name));
  }

  /** Each member votes for its first candidate; the most votes wins (ties: the first counted). */
  selectProtocol(): string {
    const candidates = this.candidateProtocols();
    const votes = new Map<string, number>();
    for (const m of this.members.values()) {
      const v = m.vote(candidates);
      votes.set(v, (votes.get(v) ?? 0) + 1);
    }
    let best: string | null = null;
    let bestVotes = -1;
    for (const [p, n] of votes) {
      if (n > bestVotes) {
        best = p;
        bestVotes = n;
      }
    }
    return best!;
  }

  /** After a rebalance: the next generation, Empty when nobody rejoined. */
  initNextGeneration(): void {
    if (this.members.size > 0) {
      this.generationId += 1;
      this.protocolName = this.selectProtocol();
      this.subscribedTopics = this.computeSubscribedTopics();
      this.transitionTo('CompletingRebalance');
    } else {
      this.generationId += 1;
      this.protocolName = null;
      this.subscribedTopics = this.computeSubscribedTopics();
      this.transitionTo('Empty');
    }
  }

  /** Kafka's computeSubscribedTopics: the union of the members' subscriptions in the selected protocol. */
  computeSubscribedTopics(): ReadonlySet<string> | null {
    if (this.protocolType !== CONSUMER_PROTOCOL_TYPE) return null;
    if (this.members.size === 0) return new Set();
    if (this.protocolName === null) return null;
    try {
      const topics = new Set<string>();
      for (const m of this.members.values()) for (const t of subscriptionTopics(m.metadata(this.protocolName))) topics.add(t);
      return topics;
    } catch {
      return null; // not the consumer protocol after all: the coordinator cannot know the topics
    }
  }

  isConsumerGroup(): boolean {
    return this.protocolType === CONSUMER_PROTOCOL_TYPE;
  }

  isSubscribedToTopic(topic: string): boolean {
    return this.subscribedTopics?.has(topic) ?? false;
  }

  /** The protocol subscribed topics are not needed by the broker: assignment bytes are opaque. */
  allMemberMetadata(): { memberId: string; groupInstanceId: string | null; metadata: Buffer }[] {
    return [...this.members.values()].map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, metadata: m.metadata(this.protocolName!) }));
  }
}
