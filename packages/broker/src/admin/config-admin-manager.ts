import { ErrorCode, GregorError, topicNameProblem, type Logger } from '@gregor/common';
import {
  ConfigResourceType,
  type AlterConfigsResource,
  type AlterConfigsResourceResponse,
  type DescribeConfigsRequest,
  type DescribeConfigsResult,
  type IncrementalAlterConfigsResource,
} from '@gregor/protocol';
import { configEntityDefault, type BrokerConfigEntity, type KafkaZkClient } from '@gregor/zookeeper';
import { brokerConfigKey } from '../config/broker-config.js';
import { describeBrokerConfigs, describeTopicConfigs, type DescribeOptions } from '../config/config-describer.js';
import { isDynamicallyUpdatable, type DynamicBrokerConfig } from '../config/dynamic-broker-config.js';
import { applyIncrementalOps, type OverrideSet } from '../config/incremental-alter.js';
import { topicConfigKey, topicConfigValueProblem } from '../config/topic-config.js';
import type { MetadataCache } from '../metadata/metadata-cache.js';

export interface ConfigAdminManagerOptions {
  zk: KafkaZkClient;
  metadataCache: MetadataCache;
  dynamicConfig: DynamicBrokerConfig;
  /** Applies new topic overrides on this broker at once (the /config/changes notification reaches the others). */
  applyTopicConfig: (topic: string, overrides: Record<string, string>) => void;
  log: Logger;
}

const NO_LOGGERS = 'BROKER_LOGGER is not supported: gregor has no log4j loggers (its log level is set with LOG_LEVEL at startup)';

/**
 * The config admin APIs (Kafka's ConfigHelper and ZkAdminManager): DescribeConfigs, AlterConfigs and
 * IncrementalAlterConfigs for topics (/config/topics/<t>) and brokers (/config/brokers/<id>, and
 * /config/brokers/<default> for resource name ""). Every write is followed by a /config/changes
 * notification; validate_only writes nothing. Each resource gets its own error.
 */
export class ConfigAdminManager {
  readonly #o: ConfigAdminManagerOptions;

  constructor(options: ConfigAdminManagerOptions) {
    this.#o = options;
  }

  /**
   * A new topic's effective settings with their sources, without synonyms, as CreateTopics v5+ echoes
   * them (KIP-525; Kafka builds them with the same ConfigHelper as DescribeConfigs).
   */
  createdTopicConfigs(overrides: Readonly<Record<string, string>>): { name: string; value: string | null; readOnly: boolean; configSource: number; isSensitive: boolean }[] {
    const src = { levels: this.#o.dynamicConfig.levels(), broker: this.#o.dynamicConfig.config };
    return describeTopicConfigs(src, overrides, { keys: null, includeSynonyms: false, includeDocumentation: false }).map((c) => ({
      name: c.name,
      value: c.value,
      readOnly: c.readOnly,
      configSource: c.configSource,
      isSensitive: c.isSensitive,
    }));
  }

  async describeConfigs(req: DescribeConfigsRequest): Promise<DescribeConfigsResult[]> {
    const results: DescribeConfigsResult[] = [];
    for (const r of req.resources) {
      const opts: DescribeOptions = { keys: r.configurationKeys, includeSynonyms: req.includeSynonyms ?? false, includeDocumentation: req.includeDocumentation ?? false };
      const base = { resourceType: r.resourceType, resourceName: r.resourceName };
      try {
        const src = { levels: this.#o.dynamicConfig.levels(), broker: this.#o.dynamicConfig.config };
        let configs;
        switch (r.resourceType) {
          case ConfigResourceType.TOPIC:
            await this.#checkTopic(r.resourceName);
            configs = describeTopicConfigs(src, await this.#o.zk.getTopicConfig(r.resourceName), opts);
            break;
          case ConfigResourceType.BROKER:
            configs = describeBrokerConfigs(src, this.#brokerEntity(r.resourceName) !== configEntityDefault, opts);
            break;
          case ConfigResourceType.BROKER_LOGGER:
            throw new GregorError(ErrorCode.INVALID_REQUEST, NO_LOGGERS);
          default:
            throw new GregorError(ErrorCode.INVALID_REQUEST, `Unsupported resource type: ${r.resourceType}`);
        }
        results.push({ ...base, errorCode: ErrorCode.NONE, errorMessage: null, configs });
      } catch (err) {
        results.push({ ...base, ...this.#error(err, 'describe configs', r.resourceName), configs: [] });
      }
    }
    return results;
  }

  /** AlterConfigs: each resource's configs replace its whole override set. */
  async alterConfigs(resources: AlterConfigsResource[], validateOnly: boolean): Promise<AlterConfigsResourceResponse[]> {
    // Kafka fails the whole request when one resource is a logger (AlterConfigs never supported them).
    const logger = resources.some((r) => r.resourceType === ConfigResourceType.BROKER_LOGGER);
    const out: AlterConfigsResourceResponse[] = [];
    for (const r of resources) {
      const props: OverrideSet = Object.fromEntries(r.configs.map((c) => [c.name, c.value]));
      out.push(
        await this.#alter(r.resourceType, r.resourceName, async () => {
          if (logger) throw new GregorError(ErrorCode.INVALID_REQUEST, NO_LOGGERS);
          await this.#write(r.resourceType, r.resourceName, props, validateOnly);
        }),
      );
    }
    return out;
  }

  /** IncrementalAlterConfigs: SET/DELETE/APPEND/SUBTRACT applied to the current overrides in ZooKeeper, then written as AlterConfigs. */
  async incrementalAlterConfigs(resources: IncrementalAlterConfigsResource[], validateOnly: boolean): Promise<AlterConfigsResourceResponse[]> {
    const out: AlterConfigsResourceResponse[] = [];
    for (const r of resources) {
      out.push(
        await this.#alter(r.resourceType, r.resourceName, async () => {
          let next: OverrideSet;
          switch (r.resourceType) {
            case ConfigResourceType.TOPIC:
              await this.#checkTopic(r.resourceName, true);
              next = applyIncrementalOps(await this.#o.zk.getTopicConfig(r.resourceName), r.configs, topicConfigKey);
              break;
            case ConfigResourceType.BROKER: {
              const current = await this.#o.zk.getBrokerConfig(this.#brokerEntity(r.resourceName));
              // As Kafka's fromPersistentProps: what cannot be applied is not carried over.
              const applicable = Object.fromEntries(Object.entries(current).filter(([n]) => isDynamicallyUpdatable(n)));
              next = applyIncrementalOps(applicable, r.configs, brokerConfigKey);
              break;
            }
            case ConfigResourceType.BROKER_LOGGER:
              throw new GregorError(ErrorCode.INVALID_REQUEST, NO_LOGGERS);
            default:
              throw new GregorError(ErrorCode.INVALID_REQUEST, `Unsupported resource type: ${r.resourceType}`);
          }
          await this.#write(r.resourceType, r.resourceName, next, validateOnly);
        }),
      );
    }
    return out;
  }

  async #alter(resourceType: number, resourceName: string, run: () => Promise<void>): Promise<AlterConfigsResourceResponse> {
    try {
      await run();
      return { resourceType, resourceName, errorCode: ErrorCode.NONE, errorMessage: null };
    } catch (err) {
      return { resourceType, resourceName, ...this.#error(err, 'alter configs', resourceName) };
    }
  }

  /** Validates a whole override set and, unless validate_only, writes it with a change notification. */
  async #write(resourceType: number, name: string, props: OverrideSet, validateOnly: boolean): Promise<void> {
    if (resourceType === ConfigResourceType.TOPIC) {
      await this.#checkTopic(name, true);
      const overrides = validTopicOverrides(props);
      if (validateOnly) return;
      await this.#o.zk.changeTopicConfig(name, overrides);
      this.#o.applyTopicConfig(name, overrides);
      this.#o.log.info({ topic: name, overrides }, 'topic configs altered');
      return;
    }
    if (resourceType !== ConfigResourceType.BROKER) {
      throw new GregorError(ErrorCode.INVALID_REQUEST, `AlterConfigs is only supported for topics and brokers, but resource type is ${resourceType}`);
    }
    const entity = this.#brokerEntity(name);
    const perBroker = entity !== configEntityDefault;
    this.#o.dynamicConfig.validate(props, perBroker);
    if (validateOnly) return;
    const configs = props as Record<string, string>;
    await this.#o.zk.changeBrokerConfig(entity, configs);
    // Applied here at once; the notification brings it to the other brokers (and again here, a no-op).
    if (perBroker) this.#o.dynamicConfig.updateBroker(configs);
    else this.#o.dynamicConfig.updateDefault(configs);
    this.#o.log.info({ entity: String(entity), configs }, 'dynamic broker configs altered');
  }

  /** A topic name that is legal and exists (ZooKeeper is the truth when this broker's metadata lags). */
  async #checkTopic(topic: string, zkOnly = false): Promise<void> {
    const problem = topicNameProblem(topic);
    if (problem) throw new GregorError(ErrorCode.INVALID_TOPIC_EXCEPTION, problem);
    if (!zkOnly && this.#o.metadataCache.contains(topic)) return;
    if (!(await this.#o.zk.getTopicAssignment(topic))) throw new GregorError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic '${topic}' does not exist.`);
  }

  /** "" = the cluster-wide defaults (<default>); otherwise it must be this broker's id. */
  #brokerEntity(name: string): BrokerConfigEntity {
    if (name === '') return configEntityDefault;
    if (!/^-?\d+$/.test(name)) throw new GregorError(ErrorCode.INVALID_REQUEST, `Broker id must be an integer, but it is: ${name}`);
    const id = Number(name);
    const own = this.#o.dynamicConfig.brokerId;
    if (id !== own) throw new GregorError(ErrorCode.INVALID_REQUEST, `Unexpected broker id, expected ${own} or empty string, but received ${name}`);
    return id;
  }

  #error(err: unknown, what: string, resource: string): { errorCode: number; errorMessage: string } {
    if (err instanceof GregorError) {
      this.#o.log.info({ resource, err: err.message }, `${what} refused`);
      return { errorCode: err.code, errorMessage: err.message };
    }
    this.#o.log.error({ resource, err }, `${what} failed`);
    return { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: (err as Error).message };
  }
}

/** Kafka's LogConfig.validate over a whole set: unknown names INVALID_CONFIG, missing or bad values INVALID_REQUEST. */
function validTopicOverrides(props: OverrideSet): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(props)) {
    if (!topicConfigKey(name)) throw new GregorError(ErrorCode.INVALID_CONFIG, `Unknown topic config name: ${name}`);
    if (value === null) throw new GregorError(ErrorCode.INVALID_REQUEST, `Null value not supported for topic config ${name}`);
    const problem = topicConfigValueProblem(name, value);
    if (problem) throw new GregorError(ErrorCode.INVALID_REQUEST, problem);
    out[name] = value;
  }
  return out;
}
