import { sleep } from '@gregor/common';
import type { ZkWatcher } from './zk-types.js';
import { ZkError, ZkErrorCode } from './zk-errors.js';
import * as paths from './paths.js';
import {
  decodeConsumerOffset,
  decodeConsumerOwner,
  decodeConsumerRegistration,
  encodeConsumerOffset,
  encodeConsumerOwner,
  encodeConsumerRegistration,
  type ConsumerRegistration,
} from './data.js';
import { isCode } from './znode-access.js';
import { NotificationZnodes } from './notification-znodes.js';

/** KafkaZkClient's old high-level consumer znodes (/consumers/<g>/ids, owners, offsets). */
export class ConsumerZnodes extends NotificationZnodes {
  /** Ephemeral /consumers/<g>/ids/<consumerId>; a node left by our previous session is waited for (bounded). */
  async registerConsumer(group: string, consumerId: string, registration: ConsumerRegistration, options: { waitForStaleMs?: number } = {}): Promise<void> {
    const zk = this.zk;
    const path = paths.consumerIdPath(group, consumerId);
    const data = encodeConsumerRegistration(registration);
    await zk.mkdirp(paths.consumerIdsPath(group));
    const deadline = Date.now() + (options.waitForStaleMs ?? zk.sessionTimeoutMs + 2000);
    for (;;) {
      try {
        await zk.create(path, data, 'ephemeral');
        return;
      } catch (error) {
        if (!isCode(error, ZkErrorCode.NODE_EXISTS)) throw error;
      }
      const stat = await zk.exists(path);
      if (stat && stat.ephemeralOwner === zk.sessionIdValue) {
        await zk.setData(path, data);
        return;
      }
      if (Date.now() >= deadline) throw new ZkError(ZkErrorCode.NODE_EXISTS, path);
      await sleep(Math.min(200, Math.max(1, deadline - Date.now())));
    }
  }

  /** Consumer ids of the group, sorted (the rebalance order); a watcher fires on membership change. */
  async getConsumerIds(group: string, watcher?: ZkWatcher): Promise<string[]> {
    await this.zk.mkdirp(paths.consumerIdsPath(group));
    return (await this.zk.getChildren(paths.consumerIdsPath(group), watcher)).sort();
  }

  async getConsumerRegistration(group: string, consumerId: string): Promise<ConsumerRegistration | null> {
    const path = paths.consumerIdPath(group, consumerId);
    const node = await this.zk.getDataOrNull(path);
    return node ? decodeConsumerRegistration(node.data, path) : null;
  }

  /** Claims a partition with an ephemeral owner node; false if another consumer thread still owns it. */
  async claimPartition(group: string, topic: string, partition: number, consumerThreadId: string): Promise<boolean> {
    const zk = this.zk;
    const path = paths.consumerOwnerPath(group, topic, partition);
    await zk.mkdirp(paths.consumerOwnersPath(group, topic));
    if (await zk.createIfAbsent(path, encodeConsumerOwner(consumerThreadId), 'ephemeral')) return true;
    const owner = await zk.getDataOrNull(path);
    // Our own claim from this session (a repeated rebalance) still counts.
    return owner !== null && decodeConsumerOwner(owner.data) === consumerThreadId && owner.stat.ephemeralOwner === zk.sessionIdValue;
  }

  /** Releases a partition if this session owns it. */
  async releasePartition(group: string, topic: string, partition: number): Promise<void> {
    const path = paths.consumerOwnerPath(group, topic, partition);
    const stat = await this.zk.exists(path);
    if (!stat || stat.ephemeralOwner !== this.zk.sessionIdValue) return;
    try {
      await this.zk.delete(path, stat.version);
    } catch (error) {
      if (!isCode(error, ZkErrorCode.NO_NODE)) throw error;
    }
  }

  async getPartitionOwner(group: string, topic: string, partition: number): Promise<string | null> {
    const node = await this.zk.getDataOrNull(paths.consumerOwnerPath(group, topic, partition));
    return node ? decodeConsumerOwner(node.data) : null;
  }

  /** Stores the next offset to consume (offsets.storage=zookeeper). */
  async commitConsumerOffset(group: string, topic: string, partition: number, offset: bigint | number): Promise<void> {
    const path = paths.consumerOffsetPath(group, topic, partition);
    const data = encodeConsumerOffset(offset);
    try {
      await this.zk.setData(path, data);
    } catch (error) {
      if (!isCode(error, ZkErrorCode.NO_NODE)) throw error;
      await this.zk.mkdirp(paths.consumerOffsetsPath(group, topic));
      if (!(await this.zk.createIfAbsent(path, data))) await this.zk.setData(path, data);
    }
  }

  async getConsumerOffset(group: string, topic: string, partition: number): Promise<bigint | null> {
    const node = await this.zk.getDataOrNull(paths.consumerOffsetPath(group, topic, partition));
    return node ? decodeConsumerOffset(node.data) : null;
  }

  /** Whether the group has a node under /consumers (a ZooKeeper-kind group). */
  async consumerGroupExists(group: string): Promise<boolean> {
    return (await this.zk.exists(paths.consumerGroupPath(group))) !== null;
  }

  /** Removes /consumers/G (ids, owners, offsets): Kafka's AdminUtils.deleteConsumerGroupInZK. */
  async deleteConsumerGroup(group: string): Promise<void> {
    await this.zk.deleteRecursive(paths.consumerGroupPath(group));
  }
}
