import { ConfigError, ErrorCode } from '@gregor/common';
import { topicConfigNames, validateTopicConfig } from '@gregor/broker';
import { AlterConfigOpType, ConfigResourceType, ConfigSource } from '@gregor/protocol';
import type { FastifyInstance } from 'fastify';
import type { AdminContext } from '../admin-context.js';
import { fromKafkaError } from '../errors.js';
import { errors, noQuery, stringMap } from '../ops-schemas.js';
import { topicParams } from '../schemas.js';
import { checkTopicName, unknownTopic } from '../topic-view.js';

const configsBody = {
  type: 'object',
  required: ['name', 'configs'],
  properties: { name: { type: 'string' }, configs: stringMap },
} as const;

const nullableString = { type: ['string', 'null'] } as const;
const sourceName = { type: 'string', description: 'Kafka\'s ConfigEntry.ConfigSource: DYNAMIC_TOPIC_CONFIG, DYNAMIC_BROKER_CONFIG, DYNAMIC_DEFAULT_BROKER_CONFIG, STATIC_BROKER_CONFIG, DEFAULT_CONFIG.' } as const;

const describedConfigsBody = {
  type: 'object',
  required: ['name', 'configs'],
  properties: {
    name: { type: 'string' },
    configs: stringMap,
    /** With ?all=true: every topic config with its effective value and where it comes from (DescribeConfigs with synonyms). */
    entries: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'value', 'source', 'readOnly', 'sensitive', 'synonyms', 'documentation'],
        properties: {
          name: { type: 'string' },
          value: nullableString,
          source: sourceName,
          readOnly: { type: 'boolean' },
          sensitive: { type: 'boolean' },
          synonyms: {
            type: 'array',
            items: { type: 'object', required: ['name', 'value', 'source'], properties: { name: { type: 'string' }, value: nullableString, source: sourceName } },
          },
          documentation: nullableString,
        },
      },
    },
  },
} as const;

const getConfigsSchema = {
  params: topicParams,
  querystring: { type: 'object', additionalProperties: false, properties: { all: { type: 'string', enum: ['true', 'false'] } } },
  response: { 200: describedConfigsBody, ...errors },
} as const;

/** Kafka's Java names of DescribeConfigs' config_source values (kafka-configs --describe prints them). */
const SOURCE_NAMES: Record<number, string> = {
  [ConfigSource.UNKNOWN]: 'UNKNOWN',
  [ConfigSource.TOPIC_CONFIG]: 'DYNAMIC_TOPIC_CONFIG',
  [ConfigSource.DYNAMIC_BROKER_CONFIG]: 'DYNAMIC_BROKER_CONFIG',
  [ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG]: 'DYNAMIC_DEFAULT_BROKER_CONFIG',
  [ConfigSource.STATIC_BROKER_CONFIG]: 'STATIC_BROKER_CONFIG',
  [ConfigSource.DEFAULT_CONFIG]: 'DEFAULT_CONFIG',
  [ConfigSource.DYNAMIC_BROKER_LOGGER_CONFIG]: 'DYNAMIC_BROKER_LOGGER_CONFIG',
};
const sourceNameOf = (source: number) => SOURCE_NAMES[source] ?? 'UNKNOWN';

export interface AlterConfigsBody {
  set?: Record<string, string>;
  delete?: string[];
}

const alterConfigsSchema = {
  params: topicParams,
  querystring: noQuery,
  body: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: {
      set: { type: 'object', maxProperties: 100, additionalProperties: { type: 'string', maxLength: 10_000 } },
      delete: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 255 } },
    },
  },
  response: { 200: configsBody, ...errors },
} as const;

/**
 * GET /v1/topics/:name/configs (the topic's overrides; with ?all=true every config with its source, as
 * DescribeConfigs answers it) and PATCH (set and delete overrides): Kafka's
 * IncrementalAlterConfigs SET/DELETE through the broker's own code path (the one the Kafka API uses),
 * which writes /config/topics/<name>, announces it with a /config/changes/config_change_ sequence
 * node and applies it at once on this broker.
 */
export function topicConfigRoutes(app: FastifyInstance, { server }: AdminContext): void {
  app.get<{ Params: { name: string }; Querystring: { all?: 'true' | 'false' } }>('/v1/topics/:name/configs', { schema: getConfigsSchema }, async (request) => {
    const { name } = request.params;
    checkTopicName(name);
    if (!(await server.zk.getTopicAssignment(name))) throw unknownTopic(name);
    const configs = await server.zk.getTopicConfig(name);
    if (request.query.all !== 'true') return { name, configs };
    const [described] = await server.configAdmin.describeConfigs({
      resources: [{ resourceType: ConfigResourceType.TOPIC, resourceName: name, configurationKeys: null }],
      includeSynonyms: true,
      includeDocumentation: true,
    });
    if (described!.errorCode !== ErrorCode.NONE) throw fromKafkaError(described!.errorCode, described!.errorMessage ?? 'describe configs failed');
    const entries = described!.configs.map((c) => ({
      name: c.name,
      value: c.value,
      source: sourceNameOf(c.configSource),
      readOnly: c.readOnly,
      sensitive: c.isSensitive,
      synonyms: (c.synonyms ?? []).map((syn) => ({ name: syn.name, value: syn.value, source: sourceNameOf(syn.source) })),
      documentation: c.documentation,
    }));
    return { name, configs, entries };
  });

  app.patch<{ Params: { name: string }; Body: AlterConfigsBody }>('/v1/topics/:name/configs', { schema: alterConfigsSchema }, async (request) => {
    const { name } = request.params;
    const { set = {}, delete: remove = [] } = request.body;
    checkTopicName(name);
    const known = new Set(topicConfigNames());
    for (const key of remove) if (!known.has(key)) throw fromKafkaError(ErrorCode.INVALID_CONFIG, `Unknown topic config name: ${key}`);
    for (const key of remove) {
      if (key in set) throw fromKafkaError(ErrorCode.INVALID_REQUEST, `Config ${key} is both set and deleted.`);
    }
    try {
      validateTopicConfig(set);
    } catch (err) {
      if (err instanceof ConfigError) throw fromKafkaError(ErrorCode.INVALID_CONFIG, err.message);
      throw err;
    }
    const ops = [
      ...Object.entries(set).map(([key, value]) => ({ name: key, configOperation: AlterConfigOpType.SET, value })),
      ...remove.map((key) => ({ name: key, configOperation: AlterConfigOpType.DELETE, value: null })),
    ];
    const [result] = await server.configAdmin.incrementalAlterConfigs([{ resourceType: ConfigResourceType.TOPIC, resourceName: name, configs: ops }], false);
    if (result!.errorCode !== ErrorCode.NONE) throw fromKafkaError(result!.errorCode, result!.errorMessage ?? 'alter configs failed');
    const configs = await server.zk.getTopicConfig(name);
    request.log.info({ topic: name, set, delete: remove }, 'topic configs altered');
    return { name, configs };
  });
}
