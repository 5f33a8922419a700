import { sleep } from '@gregor/common';
import { ZkError, ZkErrorCode } from './zk-errors.js';
import type { ZkStat, ZkWatcher } from './zk-types.js';
import { BrokerIdInUseError, TopicExistsError } from './kafka-zk-errors.js';
import { isCode } from './znode-access.js';
import { ConsumerZnodes } from './consumer-znodes.js';
export type { ZkClientSource } from './znode-access.js';
import * as paths from './paths.js';
import { decodeProducerIdBlock, encodeProducerIdBlock, nextProducerIdBlock, type ProducerIdBlock } from './producer-id-block.js';
import {
  decodeBrokerRegistration,
  decodeClusterId,
  decodeController,
  decodeControllerEpoch,
  decodePartitionState,
  decodeTopicAssignment,
  encodeBrokerRegistration,
  encodeClusterId,
  encodeController,
  encodeControllerEpoch,
  encodePartitionState,
  encodeTopicAssignment,
  generateClusterId,
  type BrokerRegistration,
  type PartitionState,
  type ReplicaAssignment,
  type TopicAssignment,
  type TopicConfig,
  type TopicPartition,
} from './data.js';

export interface RegisteredBroker extends BrokerRegistration {
  /** czxid of the registration znode: Kafka's broker epoch (KIP-380). */
  epoch: bigint;
}

export interface ControllerElection {
  elected: boolean;
  /** The controller after the attempt; null if none (it vanished while we looked). */
  controllerId: number | null;
  epoch: number;
  /** zkVersion of /controller_epoch: every controller write is fenced on it. */
  epochZkVersion: number;
}

export interface PartitionStateWithVersion {
  state: PartitionState;
  zkVersion: number;
}

export interface PartitionStateToCreate extends TopicPartition {
  state: PartitionState;
}

export interface PartitionStateCreateResult extends TopicPartition {
  /** 0 on success, null on failure. */
  zkVersion: number | null;
  error: Error | null;
}

/** Contention on /latest_producer_id_block is between a few brokers; this many lost races means something is wrong. */
const MAX_PRODUCER_ID_BLOCK_ATTEMPTS = 100;

/** Kafka's KafkaZkClient: every read and write of Kafka's znodes, on top of ZkClient (split by znode family, see ZnodeAccess). */
export class KafkaZkClient extends ConsumerZnodes {
  /** Creates the persistent parents every broker relies on. */
  async ensurePersistentPaths(): Promise<void> {
    for (const path of paths.persistentPaths) await this.zk.mkdirp(path);
  }

  /** Reads /cluster/id, creating it with `proposedId` (default: a fresh one) if absent. */
  async getOrCreateClusterId(proposedId: string = generateClusterId()): Promise<string> {
    const existing = await this.zk.getDataOrNull(paths.clusterIdPath);
    if (existing) return decodeClusterId(existing.data);
    await this.zk.mkdirp('/cluster');
    if (await this.zk.createIfAbsent(paths.clusterIdPath, encodeClusterId(proposedId))) return proposedId;
    return decodeClusterId((await this.zk.getData(paths.clusterIdPath)).data);
  }

  // ---- brokers ----------------------------------------------------------------------------------

  /**
   * Creates the ephemeral /brokers/ids/<id>; returns the broker epoch (czxid).
   * A node left by our own previous session vanishes within a session timeout: wait for it (bounded).
   */
  async registerBroker(broker: Omit<BrokerRegistration, 'timestamp'> & { timestamp?: number }, options: { waitForStaleMs?: number } = {}): Promise<bigint> {
    const zk = this.zk;
    const path = paths.brokerPath(broker.brokerId);
    const data = encodeBrokerRegistration({ ...broker, timestamp: broker.timestamp ?? Date.now() });
    const deadline = Date.now() + (options.waitForStaleMs ?? zk.sessionTimeoutMs + 2000);
    for (;;) {
      try {
        await zk.create(path, data, 'ephemeral');
        const stat = await zk.exists(path);
        if (!stat) throw new ZkError(ZkErrorCode.NO_NODE, path);
        return stat.czxid;
      } catch (error) {
        if (!isCode(error, ZkErrorCode.NODE_EXISTS)) throw error;
      }
      const stat = await zk.exists(path);
      if (stat && stat.ephemeralOwner === zk.sessionIdValue) {
        await zk.setData(path, data); // already ours in this session: refresh the data
        return stat.czxid;
      }
      if (Date.now() >= deadline) throw new BrokerIdInUseError(broker.brokerId);
      await sleep(Math.min(200, Math.max(1, deadline - Date.now())));
    }
  }

  async getBrokerIds(watcher?: ZkWatcher): Promise<number[]> {
    const children = await this.zk.getChildren(paths.brokerIdsPath, watcher);
    return children.map(Number).filter(Number.isInteger).sort((a, b) => a - b);
  }

  async getBroker(brokerId: number): Promise<RegisteredBroker | null> {
    const node = await this.zk.getDataOrNull(paths.brokerPath(brokerId));
    return node ? { ...decodeBrokerRegistration(brokerId, node.data), epoch: node.stat.czxid } : null;
  }

  /** Every registered broker, sorted by id (a broker that vanishes while we read is left out). */
  async getAllBrokers(): Promise<RegisteredBroker[]> {
    const ids = await this.getBrokerIds();
    const brokers = await Promise.all(ids.map((id) => this.getBroker(id)));
    return brokers.filter((b): b is RegisteredBroker => b !== null);
  }

  // ---- controller -------------------------------------------------------------------------------

  /** The controller's broker id, or null; a watcher fires when /controller is created, changed or deleted. */
  async getControllerId(watcher?: ZkWatcher): Promise<number | null> {
    if (watcher) {
      // exists() sets the watch even when the node is absent, unlike getData().
      const stat = await this.zk.exists(paths.controllerPath, watcher);
      if (!stat) return null;
    }
    const node = await this.zk.getDataOrNull(paths.controllerPath);
    return node ? decodeController(node.data).brokerId : null;
  }

  async getControllerEpoch(): Promise<{ epoch: number; zkVersion: number } | null> {
    const node = await this.zk.getDataOrNull(paths.controllerEpochPath);
    return node ? { epoch: decodeControllerEpoch(node.data), zkVersion: node.stat.version } : null;
  }

  /**
   * Kafka 2.4's election: one multi creates the ephemeral /controller and bumps /controller_epoch conditional on
   * its zkVersion. On NODE_EXISTS / BAD_VERSION someone else won: re-read and report the winner.
   */
  async tryElectController(brokerId: number): Promise<ControllerElection> {
    const zk = this.zk;
    const current = await zk.getDataOrNull(paths.controllerPath);
    if (current) return this.#describeController(brokerId, current.stat, decodeController(current.data).brokerId, null);

    let epochNode = await this.getControllerEpoch();
    if (!epochNode) {
      await zk.createIfAbsent(paths.controllerEpochPath, encodeControllerEpoch(0));
      epochNode = await this.getControllerEpoch();
      if (!epochNode) throw new ZkError(ZkErrorCode.NO_NODE, paths.controllerEpochPath);
    }
    const newEpoch = epochNode.epoch + 1;
    try {
      const results = await zk.multi([
        { type: 'create', path: paths.controllerPath, data: encodeController(brokerId), mode: 'ephemeral' },
        { type: 'setData', path: paths.controllerEpochPath, data: encodeControllerEpoch(newEpoch), version: epochNode.zkVersion },
      ]);
      const set = results[1];
      if (set?.type !== 'setData') throw new Error('unexpected multi result');
      return { elected: true, controllerId: brokerId, epoch: newEpoch, epochZkVersion: set.stat.version };
    } catch (error) {
      if (!isCode(error, ZkErrorCode.NODE_EXISTS) && !isCode(error, ZkErrorCode.BAD_VERSION)) throw error;
    }
    const winner = await zk.getDataOrNull(paths.controllerPath);
    if (!winner) {
      const epoch = await this.getControllerEpoch();
      return { elected: false, controllerId: null, epoch: epoch?.epoch ?? 0, epochZkVersion: epoch?.zkVersion ?? -1 };
    }
    return this.#describeController(brokerId, winner.stat, decodeController(winner.data).brokerId, newEpoch);
  }

  /**
   * Who holds /controller now, and whether it is ours: an election whose answer was lost (a timeout) may have
   * created it. It is ours only if this session owns the ephemeral node (ephemeralOwner), not just our broker id.
   */
  async describeController(brokerId: number): Promise<ControllerElection> {
    const node = await this.zk.getDataOrNull(paths.controllerPath);
    if (!node) {
      const epoch = await this.getControllerEpoch();
      return { elected: false, controllerId: null, epoch: epoch?.epoch ?? 0, epochZkVersion: epoch?.zkVersion ?? -1 };
    }
    return this.#describeController(brokerId, node.stat, decodeController(node.data).brokerId, null);
  }

  /** We count as controller only if the node is ours, in this session, and (after a race) the epoch is the one we wrote. */
  async #describeController(brokerId: number, stat: ZkStat, controllerId: number, expectedEpoch: number | null): Promise<ControllerElection> {
    const epoch = await this.getControllerEpoch();
    const ours = controllerId === brokerId && stat.ephemeralOwner === this.zk.sessionIdValue;
    const elected = ours && epoch !== null && (expectedEpoch === null || epoch.epoch === expectedEpoch);
    return { elected, controllerId, epoch: epoch?.epoch ?? 0, epochZkVersion: epoch?.zkVersion ?? -1 };
  }

  /** Deletes /controller if it is ours (controller resignation on shutdown). */
  async resignController(brokerId: number): Promise<void> {
    const node = await this.zk.getDataOrNull(paths.controllerPath);
    if (!node || decodeController(node.data).brokerId !== brokerId || node.stat.ephemeralOwner !== this.zk.sessionIdValue) return;
    try {
      await this.zk.delete(paths.controllerPath, node.stat.version);
    } catch (error) {
      if (!isCode(error, ZkErrorCode.NO_NODE) && !isCode(error, ZkErrorCode.BAD_VERSION)) throw error;
    }
  }

  // ---- topics -----------------------------------------------------------------------------------

  /** Writes /config/topics/T, then /brokers/topics/T (the controller's child watch picks it up). */
  async createTopic(topic: string, assignment: ReplicaAssignment, config: TopicConfig = {}): Promise<void> {
    const zk = this.zk;
    if (await zk.exists(paths.topicPath(topic))) throw new TopicExistsError(topic);
    await this.setTopicConfig(topic, config);
    try {
      await zk.create(paths.topicPath(topic), encodeTopicAssignment(assignment));
    } catch (error) {
      if (isCode(error, ZkErrorCode.NODE_EXISTS)) throw new TopicExistsError(topic);
      throw error;
    }
  }

  /** Whether /brokers/topics/T exists; a watcher fires on its creation, change or deletion. */
  async topicExists(topic: string, watcher?: ZkWatcher): Promise<boolean> {
    return (await this.zk.exists(paths.topicPath(topic), watcher)) !== null;
  }

  async getAllTopics(watcher?: ZkWatcher): Promise<string[]> {
    return (await this.zk.getChildren(paths.topicsPath, watcher)).sort();
  }

  async getTopicAssignment(topic: string, watcher?: ZkWatcher): Promise<{ assignment: TopicAssignment; zkVersion: number } | null> {
    const node = await this.zk.getDataOrNull(paths.topicPath(topic), watcher);
    return node ? { assignment: decodeTopicAssignment(topic, node.data), zkVersion: node.stat.version } : null;
  }

  /** Conditional on the assignment's zkVersion (and, for the controller, on /controller_epoch). Returns the new zkVersion. */
  async setTopicAssignment(topic: string, assignment: TopicAssignment | ReplicaAssignment, expectedVersion: number, controllerEpochZkVersion?: number): Promise<number> {
    return this.fencedSetData(paths.topicPath(topic), encodeTopicAssignment(assignment), expectedVersion, controllerEpochZkVersion);
  }

  // ---- partition state --------------------------------------------------------------------------

  async getPartitionState(topic: string, partition: number, watcher?: ZkWatcher): Promise<PartitionStateWithVersion | null> {
    const node = await this.zk.getDataOrNull(paths.partitionStatePath(topic, partition), watcher);
    return node ? { state: decodePartitionState(topic, partition, node.data), zkVersion: node.stat.version } : null;
  }

  /** A node's children, sorted; none when the node does not exist. */
  async getChildrenOrEmpty(path: string): Promise<string[]> {
    try {
      return (await this.zk.getChildren(path)).sort();
    } catch (error) {
      if (isCode(error, ZkErrorCode.NO_NODE)) return [];
      throw error;
    }
  }

  async getPartitionIds(topic: string): Promise<number[]> {
    try {
      return (await this.zk.getChildren(paths.topicPartitionsPath(topic))).map(Number).sort((a, b) => a - b);
    } catch (error) {
      if (isCode(error, ZkErrorCode.NO_NODE)) return [];
      throw error;
    }
  }

  /** Controller: creates the state znodes of new partitions, each fenced on /controller_epoch (pipelined). */
  async createPartitionStates(states: PartitionStateToCreate[], controllerEpochZkVersion: number): Promise<PartitionStateCreateResult[]> {
    const zk = this.zk;
    return Promise.all(
      states.map(async ({ topic, partition, state }): Promise<PartitionStateCreateResult> => {
        try {
          await zk.mkdirp(paths.topicPartitionPath(topic, partition));
          await zk.multi([
            { type: 'check', path: paths.controllerEpochPath, version: controllerEpochZkVersion },
            { type: 'create', path: paths.partitionStatePath(topic, partition), data: encodePartitionState(state) },
          ]);
          return { topic, partition, zkVersion: 0, error: null };
        } catch (error) {
          return { topic, partition, zkVersion: null, error: this.fencingError(error, controllerEpochZkVersion) };
        }
      }),
    );
  }

  /**
   * Conditional on the state's zkVersion; with `controllerEpochZkVersion` also on /controller_epoch (controller writes),
   * so a zombie controller's write fails with ControllerMovedError. Returns the new zkVersion.
   */
  async updatePartitionState(topic: string, partition: number, state: PartitionState, expectedZkVersion: number, controllerEpochZkVersion?: number): Promise<number> {
    return this.fencedSetData(paths.partitionStatePath(topic, partition), encodePartitionState(state), expectedZkVersion, controllerEpochZkVersion);
  }

  // ---- topic deletion ---------------------------------------------------------------------------

  async markTopicForDeletion(topic: string): Promise<void> {
    await this.zk.createIfAbsent(paths.deleteTopicsPath(topic));
  }

  async isTopicMarkedForDeletion(topic: string): Promise<boolean> {
    return (await this.zk.exists(paths.deleteTopicsPath(topic))) !== null;
  }

  async getTopicsMarkedForDeletion(watcher?: ZkWatcher): Promise<string[]> {
    return (await this.zk.getChildren(paths.deleteTopicsRootPath, watcher)).sort();
  }

  /** Controller, once every replica is gone: removes the topic, its config, and the deletion marker; fenced on /controller_epoch. */
  async deleteTopicZnodes(topic: string, controllerEpochZkVersion: number): Promise<void> {
    await this.fencedDeleteRecursive(paths.topicPath(topic), controllerEpochZkVersion);
    await this.fencedDeleteRecursive(paths.configTopicsPath(topic), controllerEpochZkVersion);
    await this.fencedDeleteRecursive(paths.deleteTopicsPath(topic), controllerEpochZkVersion);
  }

  /** Controller: removes /admin/delete_topics/T only (deletion disabled or topic unknown); fenced on /controller_epoch. */
  async deleteTopicDeletionMarker(topic: string, controllerEpochZkVersion: number): Promise<void> {
    await this.fencedDeleteRecursive(paths.deleteTopicsPath(topic), controllerEpochZkVersion);
  }

  // ---- producer ids (/latest_producer_id_block) -------------------------------------------------

  /**
   * Claims the next block of producer ids for `brokerId` (Kafka's ProducerIdManager.getNewProducerIdBlock): read
   * the block and its zkVersion, write the following block conditionally on that version. A lost race re-reads;
   * a BADVERSION whose stored block is ours counts as success (our own write, retried by the client library).
   * A broker must claim one block at a time: two concurrent claims of one broker could both see "ours".
   */
  async claimProducerIdBlock(brokerId: number): Promise<ProducerIdBlock> {
    const path = paths.latestProducerIdBlockPath;
    for (let attempt = 1; ; attempt++) {
      if (attempt > MAX_PRODUCER_ID_BLOCK_ATTEMPTS) throw new Error(`could not claim a producer id block in ${MAX_PRODUCER_ID_BLOCK_ATTEMPTS} attempts`);
      const node = await this.zk.getDataOrNull(path);
      if (!node) {
        await this.zk.createIfAbsent(path);
        continue;
      }
      const next = nextProducerIdBlock(brokerId, decodeProducerIdBlock(node.data));
      const data = encodeProducerIdBlock(next);
      try {
        await this.zk.setData(path, data, node.stat.version);
        return next;
      } catch (error) {
        if (isCode(error, ZkErrorCode.BAD_VERSION)) {
          const now = await this.zk.getDataOrNull(path);
          if (now && now.data.equals(data)) return next;
          continue;
        }
        if (isCode(error, ZkErrorCode.NO_NODE)) continue;
        throw error;
      }
    }
  }

  /** The last claimed block, or null if none was claimed yet. */
  async getProducerIdBlock(): Promise<ProducerIdBlock | null> {
    const node = await this.zk.getDataOrNull(paths.latestProducerIdBlockPath);
    return node ? decodeProducerIdBlock(node.data) : null;
  }

}
