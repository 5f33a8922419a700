import { ErrorCode, type Logger } from '@gregor/common';
import type { ClientSecurity } from '@gregor/client';
import { ControllerMovedError } from '@gregor/zookeeper';
import { ControllerChannelManager, type ControllerChannel, type ControllerChannelOptions } from './controller-channel-manager.js';
import { ControllerContext, tpKey, type ControllerBrokerInfo, type TopicPartition } from './controller-context.js';
import { ControllerEventManager } from './controller-event-manager.js';
import type { AlterReassignmentsOutcome, ControllerEvent, LeaderElectionOutcome, ListReassignmentsOutcome } from './controller-events.js';
import { ControllerRequestBatch } from './controller-request-batch.js';
import { PartitionReassignment, type ReassignmentRequest } from './partition-reassignment.js';
import { originReplicas, targetReplicas } from './replica-set.js';
import { isBadVersion, isNodeExists, type ControllerZk, type ElectionOutcome, type PartitionStateData } from './controller-zk.js';
import { ControllerSessionLostError, retryingControllerZk, ZkCallTimer } from './zk-retry.js';
import {
  controlledShutdownLeaderElection,
  newPartitionLeaderElection,
  offlinePartitionLeaderElection,
  preferredReplicaLeaderElection,
  type ElectionResult,
} from './leader-election.js';

/** Kafka's ElectionType.UNCLEAN (PREFERRED is 0). */
const UNCLEAN_ELECTION = 1;
/** A partition whose election failed on a ZooKeeper error is tried again after this long. */
const ELECTION_RETRY_MS = 1000;
/** After its failover failed, a broker stands for election again only after this long (others may go first). */
const FAILED_FAILOVER_BACKOFF_MS = 1000;
/** Events that take at least this long are logged with where their time went (ZooKeeper calls vs the rest). */
const SLOW_EVENT_MS = 100;
/** Partitions whose state znodes are read and written concurrently during an election (pipelined requests). */
const PARTITION_WRITES_IN_FLIGHT = 100;

export interface ControllerOptions {
  /** How requests reach brokers; default a ControllerChannelManager (tests record them instead). */
  channel?: (opts: ControllerChannelOptions) => ControllerChannel;
  /** Backoff of ZooKeeper calls retried after a connection error. */
  zkRetryBackoffMs?: { base: number; max: number };
}

export interface ControllerConfig {
  brokerId: number;
  interBrokerListenerName: string;
  /** TLS/SASL of the controller's connections to the inter-broker listener. */
  interBrokerSecurity?: ClientSecurity;
  uncleanLeaderElectionEnable: boolean;
  deleteTopicEnable: boolean;
  controllerSocketTimeoutMs: number;
  autoLeaderRebalanceEnable: boolean;
  leaderImbalanceCheckIntervalSeconds: number;
  leaderImbalancePerBrokerPercentage: number;
}

/**
 * The controller (Kafka's KafkaController in its 1.1+ event-queue form). Every broker runs one as a
 * candidate; the one holding the ephemeral /controller znode acts: it assigns leaders from the ISR,
 * writes partition state znodes fenced by the controller epoch, and tells brokers through
 * LeaderAndIsr / UpdateMetadata / StopReplica.
 */
export class KafkaController {
  readonly #cfg: ControllerConfig;
  readonly #zk: ControllerZk;
  readonly #log: Logger;
  readonly #events: ControllerEventManager<ControllerEvent>;
  readonly ctx = new ControllerContext();
  readonly #newChannel: (opts: ControllerChannelOptions) => ControllerChannel;
  #channel: ControllerChannel | null = null;
  #activeControllerId: number | null = null;
  /** Acting as controller: set only once failover has loaded the context and told the brokers. */
  #active = false;
  /** Elected, failover loading in progress: not acting yet. */
  #loading = false;
  #stopped = false;
  #rebalanceTimer: NodeJS.Timeout | undefined;
  #electionRetryTimer: NodeJS.Timeout | undefined;
  /** After a failed failover this broker lets others take /controller first, for a while. */
  #electAgainAt = 0;
  #electAgainTimer: NodeJS.Timeout | undefined;
  /** Aborted when the ZooKeeper session is lost or the controller stops: ZooKeeper calls stop retrying. */
  #sessionAbort = new AbortController();
  readonly #reassignment: PartitionReassignment;
  readonly #zkTimer = new ZkCallTimer();
  /** Called when this broker becomes or stops being the controller (metrics, logs). */
  onActiveChange: (active: boolean) => void = () => {};

  constructor(cfg: ControllerConfig, zk: ControllerZk, logger: Logger, opts: ControllerOptions = {}) {
    this.#cfg = cfg;
    this.#log = logger.child({ component: 'controller' });
    this.#zk = retryingControllerZk(zk, {
      signal: () => this.#sessionAbort.signal,
      log: this.#log,
      baseBackoffMs: opts.zkRetryBackoffMs?.base,
      maxBackoffMs: opts.zkRetryBackoffMs?.max,
      timer: this.#zkTimer,
    });
    this.#newChannel = opts.channel ?? ((o) => new ControllerChannelManager(o));
    this.#events = new ControllerEventManager((e) => this.#process(e), this.#log, (e) => this.#refuse(e));
    this.#reassignment = new PartitionReassignment({
      ctx: this.ctx,
      zk: this.#zk,
      log: this.#log,
      writeState: (tp, state, v) => this.#writeState(tp, state, v),
    });
  }

  /** Reassignments in progress (for the admin API). */
  reassignmentsInProgress(): { topic: string; partition: number; original: number[]; target: number[] }[] {
    return [...this.ctx.reassignments.values()].map(({ topic, partition }) => {
      const s = this.ctx.replicaSetOf(topic, partition);
      return { topic, partition, original: originReplicas(s), target: targetReplicas(s) };
    });
  }

  get isActive(): boolean {
    return this.#active;
  }

  get activeControllerId(): number | null {
    return this.#activeControllerId;
  }

  get epoch(): number {
    return this.ctx.epoch;
  }

  get eventTimings(): ReadonlyMap<string, { count: number; totalMs: number }> {
    return this.#events.timings;
  }

  startup(): void {
    this.#events.start();
    this.#events.put({ type: 'Startup' });
  }

  /** A new ZooKeeper session (after expiry): everything ephemeral is gone, elect again. */
  onNewZkSession(): void {
    this.#events.put({ type: 'Reelect' });
  }

  /** The ZooKeeper session is lost: stop acting at once, whatever is queued. */
  onZkSessionLost(): void {
    // Calls being retried belong to the lost session: the event in progress gives up.
    this.#sessionAbort.abort();
    this.#sessionAbort = new AbortController();
    if (this.#active || this.#loading) {
      this.#log.warn('ZooKeeper session lost: resigning as controller');
      this.#events.clear();
      this.#events.put({ type: 'Resign' });
    }
  }

  controlledShutdown(brokerId: number): Promise<{ errorCode: number; remaining: TopicPartition[] }> {
    return new Promise((respond) => {
      if (!this.#active) return respond({ errorCode: ErrorCode.NOT_CONTROLLER, remaining: [] });
      this.#events.put({ type: 'ControlledShutdown', brokerId, respond });
    });
  }

  preferredReplicaElection(partitions: TopicPartition[] | null): Promise<{ elected: TopicPartition[]; failed: TopicPartition[] }> {
    return new Promise((respond) => {
      if (!this.#active) return respond({ elected: [], failed: partitions ?? [] });
      this.#events.put({ type: 'PreferredReplicaElection', partitions, respond });
    });
  }

  /**
   * ElectLeaders (KIP-460): PREFERRED (0) or UNCLEAN (1) election for each partition, as a controller
   * event. A broker that is not the controller answers NOT_CONTROLLER for every partition (Kafka 2.4).
   */
  electLeaders(electionType: number, partitions: TopicPartition[]): Promise<LeaderElectionOutcome[]> {
    return new Promise((respond) => this.#events.put({ type: 'ElectLeaders', electionType, partitions, respond }));
  }

  /** AlterPartitionReassignments (KIP-455); null replicas cancel. Top-level NOT_CONTROLLER elsewhere. */
  alterPartitionReassignments(reassignments: ReassignmentRequest[]): Promise<AlterReassignmentsOutcome> {
    return new Promise((respond) => this.#events.put({ type: 'AlterPartitionReassignments', reassignments, respond }));
  }

  /** ListPartitionReassignments (KIP-455): the named partitions (null = all) being reassigned. */
  listPartitionReassignments(partitions: TopicPartition[] | null): Promise<ListReassignmentsOutcome> {
    return new Promise((respond) => this.#events.put({ type: 'ListPartitionReassignments', partitions, respond }));
  }

  /** unclean.leader.election.enable was turned on at run time: offline partitions may now get a leader (Kafka's UncleanLeaderElectionEnable). */
  enableDefaultUncleanLeaderElection(): void {
    this.#events.put({ type: 'UncleanLeaderElectionEnable' });
  }

  async shutdown(): Promise<void> {
    this.#stopped = true;
    this.#sessionAbort.abort(); // an event retrying against an unreachable ZooKeeper must not hold the shutdown
    clearTimeout(this.#electAgainTimer);
    await this.#events.stop();
    await this.#resign();
  }

  #enqueue = (event: ControllerEvent) => () => {
    if (!this.#stopped) this.#events.put(event);
  };

  /** Answers a request event this broker will not handle: not (or no longer) the controller, or it failed. */
  #refuse(e: ControllerEvent, errorCode: number = ErrorCode.NOT_CONTROLLER): void {
    switch (e.type) {
      case 'ControlledShutdown':
        return e.respond({ errorCode, remaining: [] });
      case 'PreferredReplicaElection':
        return e.respond?.({ elected: [], failed: e.partitions ?? [] });
      case 'ElectLeaders':
        return e.respond(e.partitions.map((tp) => ({ ...tp, errorCode, errorMessage: null })));
      case 'AlterPartitionReassignments':
      case 'ListPartitionReassignments':
        return e.respond({ errorCode, partitions: [] });
    }
  }

  /** Where a slow event's time went: ZooKeeper calls by method, and the rest (elections, building requests). */
  onSlowEvent: (profile: { event: string; ms: number; zkMs: number; zkCalls: number; zk: Record<string, { calls: number; ms: number }> }) => void = (p) =>
    this.#log.info(p, 'controller event took long');

  async #process(e: ControllerEvent): Promise<void> {
    const started = performance.now();
    this.#zkTimer.take();
    try {
      await this.#handle(e);
    } finally {
      const ms = performance.now() - started;
      const zk = this.#zkTimer.take();
      if (ms >= SLOW_EVENT_MS) this.onSlowEvent({ event: e.type, ms: Math.round(ms), zkMs: zk.totalMs, zkCalls: zk.calls, zk: zk.byMethod });
    }
  }

  async #handle(e: ControllerEvent): Promise<void> {
    try {
      await this.#processEvent(e);
    } catch (err) {
      // A request waiting on this event still gets an answer (each handler responds last, so it has not yet).
      if (err instanceof ControllerMovedError) {
        this.#refuse(e);
        // Our writes are fenced: another broker holds a newer controller epoch.
        this.#log.warn({ event: e.type, err: err.message }, 'controller moved: resigning');
        await this.#resign();
        await this.#maybeElect();
        return;
      }
      if (err instanceof ControllerSessionLostError) {
        // The new session (onNewZkSession) elects and reloads everything; this event's work is redone there.
        this.#refuse(e);
        this.#log.warn({ event: e.type, err: err.message }, 'ZooKeeper session lost while handling an event');
        return;
      }
      this.#refuse(e, ErrorCode.UNKNOWN_SERVER_ERROR);
      throw err;
    }
  }

  async #processEvent(e: ControllerEvent): Promise<void> {
    switch (e.type) {
      case 'Startup':
      case 'ControllerChange':
        return this.#maybeElect();
      case 'Reelect':
        await this.#resign();
        return this.#maybeElect();
      case 'Resign':
        return this.#resign();
    }
    if (!this.#active) return this.#refuse(e);
    switch (e.type) {
      case 'BrokerChange':
        return this.#onBrokerChange();
      case 'TopicChange':
        return this.#onTopicChange();
      case 'PartitionModifications':
        return this.#onPartitionModifications(e.topic);
      case 'TopicDeletion':
        return this.#onTopicDeletion();
      case 'TopicDeletionStopReplicaResult':
        return this.#onStopReplicaDeleteResult(e.topic, e.partition, e.brokerId, e.errorCode);
      case 'IsrChangeNotification':
        return this.#onIsrChangeNotification();
      case 'ControlledShutdown':
        return e.respond(await this.#onControlledShutdown(e.brokerId));
      case 'PreferredReplicaElection': {
        const result = await this.#onPreferredReplicaElection(e.partitions ?? this.ctx.allPartitions());
        e.respond?.(result);
        return;
      }
      case 'ElectLeaders':
        return e.respond(await this.#onElectLeaders(e.electionType, e.partitions));
      case 'AlterPartitionReassignments': {
        const batch = this.#newBatch();
        const results = await this.#reassignment.alter(e.reassignments, batch);
        batch.send();
        const partitions = e.reassignments
          .filter((r, i, all) => all.findIndex((o) => o.topic === r.topic && o.partition === r.partition) === i)
          .map((r) => ({ topic: r.topic, partition: r.partition, ...results.get(tpKey(r.topic, r.partition))! }));
        return e.respond({ errorCode: ErrorCode.NONE, partitions });
      }
      case 'ListPartitionReassignments':
        return e.respond({ errorCode: ErrorCode.NONE, partitions: this.#reassignment.list(e.partitions) });
      case 'AutoPreferredReplicaLeaderElection':
        return this.#checkAndTriggerAutoLeaderRebalance();
      case 'PreferredReplicaElectionZnode':
        return this.#onPreferredReplicaElectionZnode();
      case 'PartitionReassignment':
        await this.#onPartitionReassignmentZnode();
        return;
      case 'UncleanLeaderElectionEnable':
      case 'OfflinePartitionElectionRetry': {
        const batch = this.#newBatch();
        await this.#electLeadersForNewOrOfflinePartitions(this.ctx.allPartitions(), batch);
        batch.send();
        return;
      }
      case 'LogDirEventNotification':
        return this.#onLogDirEventNotification();
      case 'LeaderAndIsrResponseReceived':
        return this.#onLeaderAndIsrResponse(e.brokerId, e.partitionErrors);
    }
  }

  // ---- election -------------------------------------------------------------------------

  async #maybeElect(): Promise<void> {
    const current = await this.#zk.getControllerId(this.#enqueue({ type: 'ControllerChange' }));
    if (current !== null) {
      this.#activeControllerId = current;
      if (current !== this.#cfg.brokerId) {
        if (this.#active) await this.#resign();
        return;
      }
      if (this.#active) return;
      // /controller names this broker but it is not acting: an election whose answer was lost (a timeout) may
      // have created it. It is ours only if this session owns the znode; a previous session's vanishes with it.
      const owned = await this.#zk.describeController(this.#cfg.brokerId);
      if (!owned.elected) return;
      this.#log.warn({ epoch: owned.epoch }, '/controller is ours although the election got no answer: acting as controller');
      return this.#becomeController(owned);
    }
    const wait = this.#electAgainAt - Date.now();
    if (wait > 0) {
      clearTimeout(this.#electAgainTimer);
      this.#electAgainTimer = setTimeout(this.#enqueue({ type: 'ControllerChange' }), wait);
      this.#electAgainTimer.unref();
      return;
    }
    const outcome = await this.#zk.tryElectController(this.#cfg.brokerId);
    this.#activeControllerId = outcome.controllerId;
    // Re-arm the watch: the election itself changed /controller.
    await this.#zk.getControllerId(this.#enqueue({ type: 'ControllerChange' }));
    if (!outcome.elected) {
      if (this.#active) await this.#resign();
      return;
    }
    await this.#becomeController(outcome);
  }

  async #becomeController(outcome: ElectionOutcome): Promise<void> {
    this.#activeControllerId = this.#cfg.brokerId;
    this.ctx.epoch = outcome.epoch;
    this.ctx.epochZkVersion = outcome.epochZkVersion;
    this.#log.info({ epoch: outcome.epoch }, 'elected controller');
    try {
      await this.#onControllerFailover();
    } catch (err) {
      // A half-loaded controller must not act.
      await this.#resign();
      if (err instanceof ControllerMovedError || err instanceof ControllerSessionLostError) throw err;
      // Kafka's triggerControllerMove: free /controller so another broker (or this one, afresh) takes over.
      this.#log.error({ err }, 'controller failover failed: resigning and deleting /controller');
      this.#electAgainAt = Date.now() + FAILED_FAILOVER_BACKOFF_MS;
      await this.#zk.resignController(this.#cfg.brokerId);
    }
  }

  async #resign(): Promise<void> {
    clearInterval(this.#rebalanceTimer);
    this.#rebalanceTimer = undefined;
    clearTimeout(this.#electionRetryTimer);
    this.#electionRetryTimer = undefined;
    this.#loading = false;
    const wasActive = this.#active;
    this.#active = false;
    const channel = this.#channel;
    this.#channel = null;
    await channel?.shutdown();
    this.ctx.reset();
    if (wasActive) {
      this.#log.info('resigned as controller');
      this.onActiveChange(false);
    }
  }

  #newBatch(): ControllerRequestBatch {
    return new ControllerRequestBatch(
      this.ctx,
      this.#channel!,
      this.#cfg.brokerId,
      this.#log,
      (topic, partition, brokerId, errorCode) => this.#events.put({ type: 'TopicDeletionStopReplicaResult', topic, partition, brokerId, errorCode }),
      (brokerId, partitionErrors) => {
        // Only answers that can change which replicas are offline (KIP-112) become events.
        if (partitionErrors.some((e) => e.errorCode === ErrorCode.KAFKA_STORAGE_ERROR) || this.ctx.replicasOnOfflineDirs.has(brokerId)) {
          this.#events.put({ type: 'LeaderAndIsrResponseReceived', brokerId, partitionErrors });
        }
      },
      this.#cfg.interBrokerListenerName,
    );
  }

  async #onControllerFailover(): Promise<void> {
    this.#loading = true;
    this.#channel = this.#newChannel({
      controllerId: this.#cfg.brokerId,
      listenerName: this.#cfg.interBrokerListenerName,
      requestTimeoutMs: this.#cfg.controllerSocketTimeoutMs,
      ...(this.#cfg.interBrokerSecurity ? { security: this.#cfg.interBrokerSecurity } : {}),
      logger: this.#log,
    });
    // Load everything, watching what the controller must follow.
    const brokers = await this.#readBrokers(await this.#zk.getBrokerIds(this.#enqueue({ type: 'BrokerChange' })));
    for (const b of brokers) {
      this.ctx.liveBrokers.set(b.id, b);
      this.#channel.addBroker(b);
    }
    const topics = await this.#zk.getTopics(this.#enqueue({ type: 'TopicChange' }));
    for (const topic of topics) await this.#loadTopic(topic);
    await this.#zk.getIsrChangeNotifications(this.#enqueue({ type: 'IsrChangeNotification' }));
    // Log dir failures reported while no controller listened are answered by the LeaderAndIsr sent below.
    const logDirEvents = await this.#zk.getLogDirEventNotifications(this.#enqueue({ type: 'LogDirEventNotification' }));
    if (logDirEvents.length > 0) await this.#zk.deleteLogDirEventNotifications(logDirEvents.map((n) => n.name), this.ctx.epochZkVersion);

    const batch = this.#newBatch();
    // Brokers must know the live brokers and every partition before they act on LeaderAndIsr.
    batch.addUpdateMetadata([...this.ctx.liveBrokers.keys()], this.ctx.allPartitions());
    batch.send();
    await this.#electLeadersForNewOrOfflinePartitions(this.ctx.allPartitions(), batch);
    // Resend the current leadership to every live replica: brokers may have missed decisions.
    for (const tp of this.ctx.allPartitions()) batch.addLeaderAndIsr(this.ctx.replicasOf(tp.topic, tp.partition), tp);
    batch.send();
    // Loaded and the brokers told: only now does this broker act (and say so) as controller.
    this.#loading = false;
    this.#active = true;
    this.onActiveChange(true);
    await this.#onTopicDeletion();
    // Reassignments: what /admin/reassign_partitions asks for, then those the assignment znodes say are in progress.
    const started = await this.#onPartitionReassignmentZnode();
    const resuming = this.#newBatch();
    await this.#reassignment.resume(resuming, (tp) => !started.has(tpKey(tp.topic, tp.partition)));
    resuming.send();
    await this.#onPreferredReplicaElectionZnode();
    if (this.#cfg.autoLeaderRebalanceEnable) {
      this.#rebalanceTimer = setInterval(
        this.#enqueue({ type: 'AutoPreferredReplicaLeaderElection' }),
        this.#cfg.leaderImbalanceCheckIntervalSeconds * 1000,
      );
      this.#rebalanceTimer.unref();
    }
  }

  async #readBrokers(ids: number[]): Promise<ControllerBrokerInfo[]> {
    const out: ControllerBrokerInfo[] = [];
    for (const id of ids) {
      const b = await this.#zk.getBroker(id);
      if (b) out.push(b);
    }
    return out;
  }

  async #loadTopic(topic: string): Promise<void> {
    const assignment = await this.#zk.getTopicAssignment(topic, this.#enqueue({ type: 'PartitionModifications', topic }));
    if (!assignment) return;
    for (const [partition, replicas] of assignment.partitions) {
      // Partitions being reassigned (KIP-455) resume from the adding/removing replicas in the znode.
      const adding = assignment.addingReplicas.get(partition) ?? [];
      const removing = assignment.removingReplicas.get(partition) ?? [];
      this.ctx.setReplicaSet(topic, partition, { replicas, adding, removing });
    }
    for (const partition of assignment.partitions.keys()) {
      const s = await this.#zk.getPartitionState(topic, partition);
      if (s) this.ctx.leadership.set(tpKey(topic, partition), { topic, partition, ...s.state, zkVersion: s.zkVersion });
    }
  }

  // ---- leadership -----------------------------------------------------------------------

  /**
   * Elects leaders for partitions that have no state yet (new) or whose leader is not live
   * (offline), writes the state znodes, and queues LeaderAndIsr to their replicas.
   */
  async #electLeadersForNewOrOfflinePartitions(tps: TopicPartition[], batch: ControllerRequestBatch): Promise<void> {
    const uncleanAllowed = this.#uncleanAllowedPerTopic();
    await this.#eachPartition(tps, 'leader election', async (tp) => {
      if (this.ctx.topicsToBeDeleted.has(tp.topic)) return;
      const key = tpKey(tp.topic, tp.partition);
      const replicas = this.ctx.replicasOf(tp.topic, tp.partition);
      const current = this.ctx.leadership.get(key);
      const online = this.ctx.onlineReplicaBrokers(tp);
      if (!current) {
        const r = newPartitionLeaderElection(replicas, online);
        if (!r) {
          this.#log.warn({ partition: key, replicas }, 'new partition has no live replica; it stays offline');
          return;
        }
        await this.#createState(tp, r, batch);
      } else if (!online.has(current.leader)) {
        const unclean = await uncleanAllowed(tp.topic);
        await this.#electAndWrite(tp, (isr) => offlinePartitionLeaderElection(replicas, isr, online, unclean), batch);
      }
    });
  }

  /**
   * Runs `fn` for each partition, up to PARTITION_WRITES_IN_FLIGHT at a time: their ZooKeeper reads and writes
   * are pipelined on the session instead of one round trip after another (Kafka 2.4 sends a state change's
   * znode writes as one batch of async requests). One partition's ZooKeeper failure does not stop the others
   * (their decisions still reach the brokers), and the failed ones are elected again shortly. A moved
   * controller or a lost session stops everything.
   */
  async #eachPartition(tps: TopicPartition[], what: string, fn: (tp: TopicPartition) => Promise<void>): Promise<void> {
    let failed = 0;
    let fatal: { err: unknown } | null = null;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < tps.length && fatal === null) {
        const tp = tps[next++]!;
        try {
          await fn(tp);
        } catch (err) {
          if (err instanceof ControllerMovedError || err instanceof ControllerSessionLostError) {
            fatal ??= { err };
            return;
          }
          failed++;
          this.#log.error({ err, partition: tpKey(tp.topic, tp.partition) }, `${what} failed for a partition; retrying in ${ELECTION_RETRY_MS} ms`);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARTITION_WRITES_IN_FLIGHT, tps.length) }, worker));
    if (fatal !== null) throw (fatal as { err: unknown }).err;
    if (failed > 0 && !this.#electionRetryTimer && !this.#stopped) {
      this.#electionRetryTimer = setTimeout(() => {
        this.#electionRetryTimer = undefined;
        if (!this.#stopped) this.#events.put({ type: 'OfflinePartitionElectionRetry' });
      }, ELECTION_RETRY_MS);
      this.#electionRetryTimer.unref();
    }
  }

  async #createState(tp: TopicPartition, r: ElectionResult, batch: ControllerRequestBatch): Promise<void> {
    const key = tpKey(tp.topic, tp.partition);
    const state: PartitionStateData = { controllerEpoch: this.ctx.epoch, leader: r.leader, leaderEpoch: 0, isr: r.isr };
    try {
      const zkVersion = await this.#zk.createPartitionState(tp.topic, tp.partition, state, this.ctx.epochZkVersion);
      this.ctx.leadership.set(key, { ...tp, ...state, zkVersion });
      batch.addLeaderAndIsr(this.ctx.replicasOf(tp.topic, tp.partition), tp, true);
      this.#log.info({ partition: key, leader: r.leader, isr: r.isr }, 'partition online');
    } catch (err) {
      if (!isNodeExists(err)) throw err;
      // Created meanwhile, possibly by our own create retried after a lost answer: brokers learn what is stored.
      const s = await this.#zk.getPartitionState(tp.topic, tp.partition);
      if (s) {
        this.ctx.leadership.set(key, { ...tp, ...s.state, zkVersion: s.zkVersion });
        batch.addLeaderAndIsr(this.ctx.replicasOf(tp.topic, tp.partition), tp, true);
      }
    }
  }

  /**
   * Runs an election against the freshest ISR and writes it conditionally; on a stale zkVersion
   * (a leader changed the ISR meanwhile) re-reads once and retries.
   */
  async #electAndWrite(
    tp: TopicPartition,
    elect: (isr: number[]) => ElectionResult | null,
    batch: ControllerRequestBatch,
  ): Promise<boolean> {
    const key = tpKey(tp.topic, tp.partition);
    for (let attempt = 0; attempt < 3; attempt++) {
      const current = this.ctx.leadership.get(key);
      if (!current) return false;
      const r = elect(current.isr);
      if (!r) {
        if (this.ctx.isReplicaOnline(current.leader, tp)) return false;
        // No eligible leader: the partition goes offline (leader -1), the ISR keeps its last member.
        if (current.leader === -1) return false;
        const offline: PartitionStateData = { controllerEpoch: this.ctx.epoch, leader: -1, leaderEpoch: current.leaderEpoch + 1, isr: current.isr };
        if (await this.#writeState(tp, offline, current.zkVersion)) {
          this.#log.warn({ partition: key, isr: current.isr }, 'no live in-sync replica: partition offline');
          batch.addUpdateMetadata([...this.ctx.liveBrokers.keys()], [tp]);
          return false;
        }
        continue;
      }
      if (r.unclean) this.#log.error({ partition: key, leader: r.leader, oldIsr: current.isr }, 'unclean leader election: acknowledged data may be lost');
      const next: PartitionStateData = { controllerEpoch: this.ctx.epoch, leader: r.leader, leaderEpoch: current.leaderEpoch + 1, isr: r.isr };
      if (await this.#writeState(tp, next, current.zkVersion)) {
        this.#log.info({ partition: key, leader: r.leader, leaderEpoch: next.leaderEpoch, isr: r.isr }, 'new leader elected');
        batch.addLeaderAndIsr(this.ctx.replicasOf(tp.topic, tp.partition), tp);
        return true;
      }
    }
    this.#log.error({ partition: key }, 'gave up electing a leader after repeated zkVersion conflicts');
    return false;
  }

  /** unclean.leader.election.enable: the topic's override in /config/topics/<t>, else the broker's setting. */
  /** #uncleanAllowed read once per topic for one election round (Kafka reads the topics' configs once per batch). */
  #uncleanAllowedPerTopic(): (topic: string) => Promise<boolean> {
    const cache = new Map<string, Promise<boolean>>();
    return (topic) => {
      let p = cache.get(topic);
      if (!p) cache.set(topic, (p = this.#uncleanAllowed(topic)));
      return p;
    };
  }

  async #uncleanAllowed(topic: string): Promise<boolean> {
    const override = (await this.#zk.getTopicConfig(topic))['unclean.leader.election.enable'];
    return override !== undefined ? override === 'true' : this.#cfg.uncleanLeaderElectionEnable;
  }

  /** Conditional write of a state znode; on BADVERSION refreshes the context and returns false. */
  async #writeState(tp: TopicPartition, state: PartitionStateData, expectedZkVersion: number): Promise<boolean> {
    const key = tpKey(tp.topic, tp.partition);
    try {
      const zkVersion = await this.#zk.updatePartitionState(tp.topic, tp.partition, state, expectedZkVersion, this.ctx.epochZkVersion);
      this.ctx.leadership.set(key, { ...tp, ...state, zkVersion });
      return true;
    } catch (err) {
      if (!isBadVersion(err)) throw err;
      const s = await this.#zk.getPartitionState(tp.topic, tp.partition);
      if (s) this.ctx.leadership.set(key, { ...tp, ...s.state, zkVersion: s.zkVersion });
      // Our own write, retried after its answer was lost, finds its own result: it succeeded.
      return s !== null && sameState(s.state, state);
    }
  }

  // ---- brokers --------------------------------------------------------------------------

  async #onBrokerChange(): Promise<void> {
    const ids = new Set(await this.#zk.getBrokerIds(this.#enqueue({ type: 'BrokerChange' })));
    const current = await this.#readBrokers([...ids]);
    const known = this.ctx.liveBrokers;
    const newBrokers = current.filter((b) => !known.has(b.id));
    const bounced = current.filter((b) => known.has(b.id) && known.get(b.id)!.epoch !== b.epoch);
    const dead = [...known.keys()].filter((id) => !ids.has(id));
    if (newBrokers.length === 0 && bounced.length === 0 && dead.length === 0) return;
    this.#log.info({ new: newBrokers.map((b) => b.id), dead, bounced: bounced.map((b) => b.id) }, 'broker change');

    for (const id of [...dead, ...bounced.map((b) => b.id)]) {
      known.delete(id);
      this.ctx.shuttingDownBrokerIds.delete(id);
      // A restarted broker reloads its log dirs: what failed before is back (or reported again).
      this.ctx.replicasOnOfflineDirs.delete(id);
      await this.#channel!.removeBroker(id);
    }
    if (dead.length > 0 || bounced.length > 0) await this.#onBrokerFailure([...dead, ...bounced.map((b) => b.id)]);
    const started = [...newBrokers, ...bounced];
    for (const b of started) {
      known.set(b.id, b);
      this.#channel!.addBroker(b);
    }
    if (started.length > 0) await this.#onBrokerStartup(started.map((b) => b.id));
  }

  async #onBrokerFailure(deadIds: number[]): Promise<void> {
    const batch = this.#newBatch();
    const dead = new Set(deadIds);
    await this.#onReplicasOffline(this.ctx.allPartitions(), (_tp, broker) => dead.has(broker), batch);
    batch.addUpdateMetadata([...this.ctx.liveBrokers.keys()], []);
    batch.send();
    await this.#retryPendingDeletions();
  }

  /**
   * Kafka's onReplicasBecomeOffline: a partition whose leader's replica is offline gets a new leader from the
   * online ISR; an offline follower leaves the ISR at once (the OfflineReplica transition).
   */
  async #onReplicasOffline(tps: TopicPartition[], isOffline: (tp: TopicPartition, broker: number) => boolean, batch: ControllerRequestBatch): Promise<void> {
    const uncleanAllowed = this.#uncleanAllowedPerTopic();
    await this.#eachPartition(tps, 'offline replica handling', async (tp) => {
      const l = this.ctx.leadership.get(tpKey(tp.topic, tp.partition));
      if (!l || this.ctx.topicsToBeDeleted.has(tp.topic)) return;
      const replicas = this.ctx.replicasOf(tp.topic, tp.partition);
      if (l.leader >= 0 && isOffline(tp, l.leader)) {
        const online = this.ctx.onlineReplicaBrokers(tp);
        const unclean = await uncleanAllowed(tp.topic);
        await this.#electAndWrite(tp, (isr) => offlinePartitionLeaderElection(replicas, isr, online, unclean), batch);
      } else if (l.leader >= 0 && l.isr.some((b) => isOffline(tp, b))) {
        await this.#removeReplicasFromIsr(tp, new Set(l.isr.filter((b) => isOffline(tp, b))), batch);
      }
    });
  }

  // ---- failed log dirs (KIP-112) ---------------------------------------------------------

  /**
   * Kafka's onBrokerLogDirFailure: a broker reported a failed log dir. Every replica it hosts gets LeaderAndIsr;
   * its answers name the replicas in failed dirs (KAFKA_STORAGE_ERROR), handled as they arrive.
   */
  async #onLogDirEventNotification(): Promise<void> {
    const notes = await this.#zk.getLogDirEventNotifications(this.#enqueue({ type: 'LogDirEventNotification' }));
    if (notes.length === 0) return;
    const brokers = new Set(notes.map((n) => n.brokerId).filter((b): b is number => b !== null && this.ctx.liveBrokers.has(b)));
    this.#log.warn({ brokers: [...brokers] }, 'log dir failure reported: asking the broker which replicas are offline');
    const batch = this.#newBatch();
    for (const broker of brokers) {
      for (const tp of this.ctx.partitionsOnBroker(broker)) {
        if (this.ctx.leadership.has(tpKey(tp.topic, tp.partition)) && !this.ctx.topicsToBeDeleted.has(tp.topic)) batch.addLeaderAndIsr([broker], tp);
      }
    }
    batch.send();
    await this.#zk.deleteLogDirEventNotifications(notes.map((n) => n.name), this.ctx.epochZkVersion);
  }

  /** Kafka's LeaderAndIsrResponseReceived: KAFKA_STORAGE_ERROR marks a replica offline, NONE online again. */
  async #onLeaderAndIsrResponse(brokerId: number, partitionErrors: (TopicPartition & { errorCode: number })[]): Promise<void> {
    if (!this.ctx.liveBrokers.has(brokerId)) return;
    const previous = this.ctx.replicasOnOfflineDirs.get(brokerId) ?? new Set<string>();
    const current = new Set(previous);
    const newlyOffline: TopicPartition[] = [];
    for (const e of partitionErrors) {
      const key = tpKey(e.topic, e.partition);
      if (e.errorCode === ErrorCode.KAFKA_STORAGE_ERROR) {
        current.add(key);
        if (!previous.has(key) && this.ctx.assignments.get(e.topic)?.has(e.partition)) newlyOffline.push({ topic: e.topic, partition: e.partition });
      } else if (e.errorCode === ErrorCode.NONE) current.delete(key);
    }
    if (current.size > 0) this.ctx.replicasOnOfflineDirs.set(brokerId, current);
    else this.ctx.replicasOnOfflineDirs.delete(brokerId);
    if (newlyOffline.length === 0) return;
    this.#log.warn({ broker: brokerId, partitions: newlyOffline.map((tp) => tpKey(tp.topic, tp.partition)) }, 'replicas in a failed log dir are offline');
    const batch = this.#newBatch();
    const offline = new Set(newlyOffline.map((tp) => tpKey(tp.topic, tp.partition)));
    await this.#onReplicasOffline(newlyOffline, (tp, broker) => broker === brokerId && offline.has(tpKey(tp.topic, tp.partition)), batch);
    batch.addUpdateMetadata([...this.ctx.liveBrokers.keys()], newlyOffline);
    batch.send();
  }

  async #removeReplicasFromIsr(tp: TopicPartition, ids: Set<number>, batch: ControllerRequestBatch): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const l = this.ctx.leadership.get(tpKey(tp.topic, tp.partition));
      if (!l) return;
      const isr = l.isr.filter((b) => !ids.has(b));
      if (isr.length === l.isr.length || isr.length === 0) return;
      const next: PartitionStateData = { controllerEpoch: this.ctx.epoch, leader: l.leader, leaderEpoch: l.leaderEpoch + 1, isr };
      if (await this.#writeState(tp, next, l.zkVersion)) {
        batch.addLeaderAndIsr(this.ctx.replicasOf(tp.topic, tp.partition), tp);
        return;
      }
    }
  }

  async #onBrokerStartup(ids: number[]): Promise<void> {
    const batch = this.#newBatch();
    const existing = [...this.ctx.liveBrokers.keys()].filter((id) => !ids.includes(id));
    batch.addUpdateMetadata(existing, []);
    batch.addUpdateMetadata(ids, this.ctx.allPartitions());
    batch.send();
    // Replicas on the new brokers learn their role; offline partitions may get a leader back.
    const started = new Set(ids);
    for (const tp of this.ctx.allPartitions()) {
      const replicas = this.ctx.replicasOf(tp.topic, tp.partition);
      if (replicas.some((r) => started.has(r)) && this.ctx.leadership.has(tpKey(tp.topic, tp.partition))) {
        batch.addLeaderAndIsr(replicas.filter((r) => started.has(r)), tp);
      }
    }
    await this.#electLeadersForNewOrOfflinePartitions(this.ctx.allPartitions(), batch);
    batch.send();
    // Reassignments waiting for a replica on a started broker carry on (Kafka's maybeResumeReassignments).
    const reassigning = this.#newBatch();
    await this.#reassignment.resume(reassigning, (_tp, s) => targetReplicas(s).some((b) => started.has(b)));
    reassigning.send();
    await this.#retryPendingDeletions();
  }

  async #onControlledShutdown(brokerId: number): Promise<{ errorCode: number; remaining: TopicPartition[] }> {
    if (!this.ctx.liveBrokers.has(brokerId)) return { errorCode: ErrorCode.BROKER_NOT_AVAILABLE, remaining: [] };
    this.ctx.shuttingDownBrokerIds.add(brokerId);
    const live = this.ctx.liveBrokerIds();
    const batch = this.#newBatch();
    for (const tp of this.ctx.partitionsOnBroker(brokerId)) {
      const replicas = this.ctx.replicasOf(tp.topic, tp.partition);
      if (replicas.length <= 1) continue;
      // The ISR may have grown since the last notification: elect from what ZooKeeper says now.
      const fresh = await this.#zk.getPartitionState(tp.topic, tp.partition);
      if (fresh) this.ctx.leadership.set(tpKey(tp.topic, tp.partition), { ...tp, ...fresh.state, zkVersion: fresh.zkVersion });
      const l = this.ctx.leadership.get(tpKey(tp.topic, tp.partition));
      if (!l) continue;
      if (l.leader === brokerId) {
        await this.#electAndWrite(tp, (isr) => controlledShutdownLeaderElection(replicas, isr, live, this.ctx.shuttingDownBrokerIds), batch);
      } else if (l.isr.includes(brokerId)) {
        batch.addStopReplica(brokerId, tp, false);
        await this.#removeReplicasFromIsr(tp, new Set([brokerId]), batch);
      }
    }
    batch.send();
    const remaining = this.ctx.partitionsLedBy(brokerId).filter((tp) => this.ctx.replicasOf(tp.topic, tp.partition).length > 1);
    this.#log.info({ broker: brokerId, remaining: remaining.length }, 'controlled shutdown');
    return { errorCode: ErrorCode.NONE, remaining };
  }

  // ---- topics ---------------------------------------------------------------------------

  async #onTopicChange(): Promise<void> {
    const topics = new Set(await this.#zk.getTopics(this.#enqueue({ type: 'TopicChange' })));
    const added = [...topics].filter((t) => !this.ctx.assignments.has(t));
    const removed = [...this.ctx.assignments.keys()].filter((t) => !topics.has(t));
    for (const t of removed) this.#forgetTopic(t);
    if (added.length === 0) return;
    const batch = this.#newBatch();
    const tps: TopicPartition[] = [];
    for (const t of added) {
      await this.#loadTopic(t);
      tps.push(...this.ctx.partitionsOfTopic(t));
    }
    this.#log.info({ topics: added }, 'new topics');
    await this.#electLeadersForNewOrOfflinePartitions(tps, batch);
    batch.send();
  }

  async #onPartitionModifications(topic: string): Promise<void> {
    const znode = await this.#zk.getTopicAssignment(topic, this.#enqueue({ type: 'PartitionModifications', topic }));
    if (!znode || this.ctx.topicsToBeDeleted.has(topic)) return;
    const assignment = znode.partitions;
    const known = this.ctx.assignments.get(topic) ?? new Map<number, number[]>();
    const added = [...assignment.keys()].filter((p) => !known.has(p));
    if (added.length === 0) return;
    for (const p of added) known.set(p, assignment.get(p)!);
    this.ctx.assignments.set(topic, known);
    this.#log.info({ topic, partitions: added }, 'new partitions');
    const batch = this.#newBatch();
    await this.#electLeadersForNewOrOfflinePartitions(added.map((partition) => ({ topic, partition })), batch);
    batch.send();
  }

  #forgetTopic(topic: string): void {
    for (const p of this.ctx.assignments.get(topic)?.keys() ?? []) {
      this.ctx.leadership.delete(tpKey(topic, p));
      this.ctx.reassignments.delete(tpKey(topic, p));
    }
    this.ctx.assignments.delete(topic);
    this.ctx.topicsToBeDeleted.delete(topic);
    this.ctx.deletionPendingReplicas.delete(topic);
  }

  async #onTopicDeletion(): Promise<void> {
    const marked = await this.#zk.getTopicsMarkedForDeletion(this.#enqueue({ type: 'TopicDeletion' }));
    for (const topic of marked) {
      if (this.ctx.topicsToBeDeleted.has(topic)) continue;
      if (!this.ctx.assignments.has(topic) || !this.#cfg.deleteTopicEnable) {
        if (!this.#cfg.deleteTopicEnable) this.#log.warn({ topic }, 'delete.topic.enable is false: ignoring deletion request');
        await this.#zk.removeTopicDeletionMarker(topic, this.ctx.epochZkVersion);
        continue;
      }
      this.ctx.topicsToBeDeleted.add(topic);
      const pending = new Set<string>();
      for (const tp of this.ctx.partitionsOfTopic(topic)) {
        for (const r of this.ctx.replicasOf(topic, tp.partition)) pending.add(`${r}:${tp.partition}`);
      }
      this.ctx.deletionPendingReplicas.set(topic, pending);
      this.#log.info({ topic }, 'deleting topic');
      const batch = this.#newBatch();
      batch.addUpdateMetadata([...this.ctx.liveBrokers.keys()], this.ctx.partitionsOfTopic(topic));
      for (const tp of this.ctx.partitionsOfTopic(topic)) {
        for (const r of this.ctx.replicasOf(topic, tp.partition)) batch.addStopReplica(r, tp, true);
      }
      batch.send();
      if (pending.size === 0) await this.#completeDeletion(topic);
    }
  }

  async #onStopReplicaDeleteResult(topic: string, partition: number, brokerId: number, errorCode: number): Promise<void> {
    const pending = this.ctx.deletionPendingReplicas.get(topic);
    if (!pending) return;
    if (errorCode !== ErrorCode.NONE) {
      this.#log.warn({ topic, partition, broker: brokerId, errorCode }, 'replica deletion failed; will retry when the broker restarts');
      return;
    }
    pending.delete(`${brokerId}:${partition}`);
    if (pending.size === 0) await this.#completeDeletion(topic);
  }

  /** Replicas on brokers that were down get their StopReplica when they come back. */
  async #retryPendingDeletions(): Promise<void> {
    const batch = this.#newBatch();
    for (const [topic, pending] of this.ctx.deletionPendingReplicas) {
      for (const entry of pending) {
        const [broker, partition] = entry.split(':').map(Number) as [number, number];
        if (this.ctx.liveBrokers.has(broker)) batch.addStopReplica(broker, { topic, partition }, true);
      }
    }
    batch.send();
  }

  async #completeDeletion(topic: string): Promise<void> {
    await this.#zk.deleteTopicZnodes(topic, this.ctx.epochZkVersion);
    this.#forgetTopic(topic);
    this.#log.info({ topic }, 'topic deleted');
  }

  // ---- ISR changes made by leaders ------------------------------------------------------

  async #onIsrChangeNotification(): Promise<void> {
    const notes = await this.#zk.getIsrChangeNotifications(this.#enqueue({ type: 'IsrChangeNotification' }));
    if (notes.length === 0) return;
    const tps = new Map<string, TopicPartition>();
    for (const n of notes) for (const tp of n.partitions) tps.set(tpKey(tp.topic, tp.partition), tp);
    for (const tp of tps.values()) {
      if (!this.ctx.assignments.has(tp.topic)) continue;
      const s = await this.#zk.getPartitionState(tp.topic, tp.partition);
      if (s) this.ctx.leadership.set(tpKey(tp.topic, tp.partition), { ...tp, ...s.state, zkVersion: s.zkVersion });
    }
    const batch = this.#newBatch();
    batch.addUpdateMetadata([...this.ctx.liveBrokers.keys()], [...tps.values()].filter((tp) => this.ctx.assignments.has(tp.topic)));
    batch.send();
    await this.#zk.deleteIsrChangeNotifications(notes.map((n) => n.name), this.ctx.epochZkVersion);
    // New replicas joining the ISR may complete a reassignment.
    const reassigning = this.#newBatch();
    await this.#reassignment.checkAll(reassigning);
    reassigning.send();
  }

  async #onPreferredReplicaElectionZnode(): Promise<void> {
    const partitions = await this.#zk.getPreferredReplicaElection(this.#enqueue({ type: 'PreferredReplicaElectionZnode' }));
    if (!partitions) return;
    const result = await this.#onPreferredReplicaElection(partitions);
    this.#log.info({ elected: result.elected.length, failed: result.failed.length }, 'preferred replica election requested through ZooKeeper');
    await this.#zk.deletePreferredReplicaElection(this.ctx.epochZkVersion);
  }

  /** Returns the partitions whose reassignment it started. */
  async #onPartitionReassignmentZnode(): Promise<Set<string>> {
    const requests = await this.#zk.getPartitionReassignment(this.#enqueue({ type: 'PartitionReassignment' }));
    if (!requests) return new Set();
    const batch = this.#newBatch();
    const started = await this.#reassignment.onZnodeChange(requests, batch);
    batch.send();
    return started;
  }

  // ---- preferred replica election -------------------------------------------------------

  async #onPreferredReplicaElection(tps: TopicPartition[]): Promise<{ elected: TopicPartition[]; failed: TopicPartition[] }> {
    const live = this.ctx.liveBrokerIds();
    const batch = this.#newBatch();
    const elected: TopicPartition[] = [];
    const failed: TopicPartition[] = [];
    for (const tp of tps) {
      const l = this.ctx.leadership.get(tpKey(tp.topic, tp.partition));
      const replicas = this.ctx.replicasOf(tp.topic, tp.partition);
      if (!l || this.ctx.topicsToBeDeleted.has(tp.topic)) {
        failed.push(tp);
        continue;
      }
      if (l.leader === replicas[0]) {
        elected.push(tp);
        continue;
      }
      // Leaders change ISRs on their own; the controller hears of it only after a notification delay.
      const fresh = await this.#zk.getPartitionState(tp.topic, tp.partition);
      if (fresh) this.ctx.leadership.set(tpKey(tp.topic, tp.partition), { ...tp, ...fresh.state, zkVersion: fresh.zkVersion });
      const ok = await this.#electAndWrite(tp, (isr) => preferredReplicaLeaderElection(replicas, isr, live), batch);
      (ok ? elected : failed).push(tp);
    }
    batch.send();
    return { elected, failed };
  }

  /**
   * ElectLeaders (Kafka 2.4's processReplicaLeaderElection, admin-triggered): a partition whose leader
   * is already the preferred replica (PREFERRED) or alive (UNCLEAN) needs no election; UNCLEAN may
   * pick a live replica outside the ISR whatever unclean.leader.election.enable says.
   */
  async #onElectLeaders(electionType: number, tps: TopicPartition[]): Promise<LeaderElectionOutcome[]> {
    const preferred = electionType !== UNCLEAN_ELECTION;
    const live = this.ctx.liveBrokerIds();
    const batch = this.#newBatch();
    const out: LeaderElectionOutcome[] = [];
    const seen = new Set<string>();
    for (const tp of tps) {
      const key = tpKey(tp.topic, tp.partition);
      if (seen.has(key)) continue;
      seen.add(key);
      const result = (errorCode: number, errorMessage: string | null, leader?: number) => out.push({ ...tp, errorCode, errorMessage, leader });
      if (!this.ctx.assignments.get(tp.topic)?.has(tp.partition)) {
        result(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'The partition does not exist.');
        continue;
      }
      if (this.ctx.topicsToBeDeleted.has(tp.topic)) {
        result(ErrorCode.INVALID_TOPIC_EXCEPTION, 'The topic is being deleted');
        continue;
      }
      const replicas = this.ctx.replicasOf(tp.topic, tp.partition);
      const current = this.ctx.leadership.get(key);
      const needed = preferred ? current?.leader !== replicas[0] : !current || current.leader < 0 || !live.has(current.leader);
      if (!needed) {
        result(ErrorCode.ELECTION_NOT_NEEDED, 'Leader election not needed for topic partition');
        continue;
      }
      // Leaders change ISRs on their own; elect from what ZooKeeper says now.
      const fresh = await this.#zk.getPartitionState(tp.topic, tp.partition);
      if (fresh) this.ctx.leadership.set(key, { ...tp, ...fresh.state, zkVersion: fresh.zkVersion });
      const ok = await this.#electAndWrite(
        tp,
        (isr) => (preferred ? preferredReplicaLeaderElection(replicas, isr, live) : offlinePartitionLeaderElection(replicas, isr, live, true)),
        batch,
      );
      if (ok) result(ErrorCode.NONE, null, this.ctx.leadership.get(key)!.leader);
      else if (preferred) result(ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE, `Failed to elect leader for partition ${key} under strategy PreferredReplicaPartitionLeaderElectionStrategy`);
      else result(ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE, `Failed to elect leader for partition ${key} under strategy OfflinePartitionLeaderElectionStrategy(true)`);
    }
    batch.send();
    this.#log.info({ electionType: preferred ? 'PREFERRED' : 'UNCLEAN', elected: out.filter((r) => r.errorCode === ErrorCode.NONE).length, partitions: out.length }, 'leader election requested through ElectLeaders');
    return out;
  }

  async #checkAndTriggerAutoLeaderRebalance(): Promise<void> {
    const byPreferred = new Map<number, TopicPartition[]>();
    for (const tp of this.ctx.allPartitions()) {
      const preferred = this.ctx.replicasOf(tp.topic, tp.partition)[0];
      if (preferred === undefined) continue;
      let l = byPreferred.get(preferred);
      if (!l) byPreferred.set(preferred, (l = []));
      l.push(tp);
    }
    for (const [broker, tps] of byPreferred) {
      if (!this.ctx.liveBrokers.has(broker) || this.ctx.shuttingDownBrokerIds.has(broker)) continue;
      const notLed = tps.filter((tp) => this.ctx.leadership.get(tpKey(tp.topic, tp.partition))?.leader !== broker);
      const ratio = notLed.length / tps.length;
      if (ratio * 100 > this.#cfg.leaderImbalancePerBrokerPercentage) {
        this.#log.info({ broker, imbalance: ratio }, 'leader imbalance: preferred replica election');
        await this.#onPreferredReplicaElection(notLed.filter((tp) => !this.ctx.topicsToBeDeleted.has(tp.topic)));
      }
    }
  }
}

function sameState(a: PartitionStateData, b: PartitionStateData): boolean {
  return a.leader === b.leader && a.leaderEpoch === b.leaderEpoch && a.controllerEpoch === b.controllerEpoch && a.isr.length === b.isr.length && a.isr.every((id, i) => b.isr[i] === id);
}
