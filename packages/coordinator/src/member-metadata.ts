import type { JoinGroupResponse, SyncGroupResponse } from '@gregor/protocol';

export interface Protocol {
  name: string;
  metadata: Buffer;
}

/** One member of a group (Kafka's MemberMetadata): its protocols, assignment, and the requests it has parked. */
export class MemberMetadata {
  /** Changes only when a static member rejoins with an unknown id (KIP-345: the instance gets a new member id). */
  memberId: string;
  readonly groupInstanceId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  rebalanceTimeoutMs: number;
  sessionTimeoutMs: number;
  protocolType: string;
  supportedProtocols: Protocol[];
  assignment: Buffer = Buffer.alloc(0);
  /** A parked JoinGroup: answered when the rebalance completes. */
  awaitingJoin: ((response: JoinGroupResponse) => void) | null = null;
  /** A parked SyncGroup: answered when the leader's assignment is stored. */
  awaitingSync: ((response: SyncGroupResponse) => void) | null = null;
  /** Joined in the current rebalance and not yet through a completed join (5-minute deadline). */
  isNew = false;
  /** Session deadline timer (Kafka's DelayedHeartbeat). */
  heartbeatTimer: NodeJS.Timeout | undefined;
  lastHeartbeatMs = 0;

  constructor(init: {
    memberId: string;
    groupInstanceId: string | null;
    clientId: string;
    clientHost: string;
    rebalanceTimeoutMs: number;
    sessionTimeoutMs: number;
    protocolType: string;
    supportedProtocols: Protocol[];
  }) {
    this.memberId = init.memberId;
    this.groupInstanceId = init.groupInstanceId;
    this.clientId = init.clientId;
    this.clientHost = init.clientHost;
    this.rebalanceTimeoutMs = init.rebalanceTimeoutMs;
    this.sessionTimeoutMs = init.sessionTimeoutMs;
    this.protocolType = init.protocolType;
    this.supportedProtocols = init.supportedProtocols;
  }

  /** A static member (KIP-345) keeps its place across restarts by its group.instance.id. */
  get isStaticMember(): boolean {
    return this.groupInstanceId !== null;
  }

  get isAwaitingJoin(): boolean {
    return this.awaitingJoin !== null;
  }

  get isAwaitingSync(): boolean {
    return this.awaitingSync !== null;
  }

  protocols(): Set<string> {
    return new Set(this.supportedProtocols.map((p) => p.name));
  }

  metadata(protocol: string): Buffer {
    const p = this.supportedProtocols.find((x) => x.name === protocol);
    if (!p) throw new Error(`member ${this.memberId} does not support protocol ${protocol}`);
    return p.metadata;
  }

  /** Same protocols with the same metadata, in the same order: a rejoin that needs no rebalance. */
  matches(protocols: readonly Protocol[]): boolean {
    if (protocols.length !== this.supportedProtocols.length) return false;
    return protocols.every((p, i) => p.name === this.supportedProtocols[i]!.name && p.metadata.equals(this.supportedProtocols[i]!.metadata));
  }

  /** The first of its protocols that is among the candidates (Kafka's vote). */
  vote(candidates: ReadonlySet<string>): string {
    const p = this.supportedProtocols.find((x) => candidates.has(x.name));
    if (!p) throw new Error(`member ${this.memberId} supports none of ${[...candidates].join(',')}`);
    return p.name;
  }
}
