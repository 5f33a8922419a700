import type { ZkWatcher } from './zk-types.js';
import { ZkErrorCode } from './zk-errors.js';
import * as paths from './paths.js';
import { decodeConfigChangeNotification, decodeEntityConfig, decodeTopicConfig, encodeConfigChangeNotification, encodeEntityConfig, encodeTopicConfig, type EntityConfig, type TopicConfig } from './data.js';
import { isCode, ZnodeAccess } from './znode-access.js';

/** KafkaZkClient's config znodes: /config/topics, /config/brokers, /config/users and the /config/changes notifications. */
export class ConfigZnodes extends ZnodeAccess {
  async getTopicConfig(topic: string): Promise<TopicConfig> {
    const node = await this.zk.getDataOrNull(paths.configTopicsPath(topic));
    return node ? decodeTopicConfig(topic, node.data) : {};
  }

  async setTopicConfig(topic: string, config: TopicConfig): Promise<void> {
    await this.setOrCreate(paths.configTopicsPath(topic), encodeTopicConfig(config));
  }

  /** AdminZkClient.changeTopicConfig: replaces the topic's overrides, then announces them in /config/changes. */
  async changeTopicConfig(topic: string, config: TopicConfig): Promise<void> {
    await this.setTopicConfig(topic, config);
    await this.createConfigChangeNotification(`topics/${topic}`);
  }

  // ---- dynamic broker configs ---------------------------------------------------------------------

  /** /config/brokers/<id> or /config/brokers/<default>; {} if absent. */
  async getBrokerConfig(entity: paths.BrokerConfigEntity): Promise<EntityConfig> {
    const path = paths.configBrokerPath(entity);
    const node = await this.zk.getDataOrNull(path);
    return node ? decodeEntityConfig(path, node.data) : {};
  }

  async setBrokerConfig(entity: paths.BrokerConfigEntity, config: EntityConfig): Promise<void> {
    await this.setOrCreate(paths.configBrokerPath(entity), encodeEntityConfig(config));
  }

  /** AdminZkClient.changeBrokerConfig: replaces the entity's dynamic configs, then announces them in /config/changes. */
  async changeBrokerConfig(entity: paths.BrokerConfigEntity, config: EntityConfig): Promise<void> {
    await this.setBrokerConfig(entity, config);
    await this.createConfigChangeNotification(paths.brokerConfigEntityPath(entity));
  }

  // ---- users (SCRAM credentials, as kafka-configs --entity-type users writes them) ----------------

  /** /config/users/<sanitized user>; {} if absent. */
  async getUserConfig(user: string): Promise<EntityConfig> {
    const path = paths.configUserPath(user);
    const node = await this.zk.getDataOrNull(path);
    return node ? decodeEntityConfig(path, node.data) : {};
  }

  /** AdminZkClient.changeUserOrUserClientIdConfig: replaces the user's configs, then announces them in /config/changes. */
  async changeUserConfig(user: string, config: EntityConfig): Promise<void> {
    await this.setOrCreate(paths.configUserPath(user), encodeEntityConfig(config));
    await this.createConfigChangeNotification(paths.userConfigEntityPath(user));
  }

  /** Users with a /config/users znode (desanitized names). */
  async getUsers(): Promise<string[]> {
    const children = await this.zk.getChildren(paths.configUsersPath).catch((e: unknown) => {
      if (isCode(e, ZkErrorCode.NO_NODE)) return [] as string[];
      throw e;
    });
    return children.map(paths.desanitizeEntityName).sort();
  }

  /** A sequential /config/changes/config_change_<seq> node {"version":2,"entity_path":...}; returns its path. */
  async createConfigChangeNotification(entityPath: string): Promise<string> {
    const create = () => this.zk.create(`${paths.configChangesPath}/${paths.configChangeNotificationPrefix}`, encodeConfigChangeNotification(entityPath), 'persistent_sequential');
    try {
      return await create();
    } catch (e) {
      // Kafka's makeSurePersistentPathExists: kafka-configs and `gregor users` may run before any broker did.
      if (!isCode(e, ZkErrorCode.NO_NODE)) throw e;
      await this.zk.mkdirp(paths.configChangesPath);
      return create();
    }
  }

  /** Sequence node names under /config/changes, oldest first (the watcher fires on the next change of children). */
  async getConfigChangeNotifications(watcher?: ZkWatcher): Promise<string[]> {
    return (await this.zk.getChildren(paths.configChangesPath, watcher)).filter((c) => c.startsWith(paths.configChangeNotificationPrefix)).sort();
  }

  /** The entity path one notification announces; null if it was purged meanwhile. */
  async getConfigChangeNotification(sequenceNode: string): Promise<string | null> {
    const node = await this.zk.getDataOrNull(paths.configChangeNotificationSequencePath(sequenceNode));
    return node ? decodeConfigChangeNotification(node.data) : null;
  }
}
