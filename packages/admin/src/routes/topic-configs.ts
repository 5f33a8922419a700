import { ConfigError, ErrorCode } from '@gregor/common';
import { topicConfigNames, validateTopicConfig } from '@gregor/broker';
import { configChangesPath, encodeConfigChangeNotification } from '@gregor/zookeeper';
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

const getConfigsSchema = { params: topicParams, querystring: noQuery, response: { 200: configsBody, ...errors } } as const;

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
 * GET /v1/topics/:name/configs (the topic's overrides) and PATCH (set and delete overrides, as Kafka's
 * IncrementalAlterConfigs): validated with the broker's topic config rules, written to
 * /config/topics/<name>, announced with a /config/changes/config_change_ sequence node (Kafka's
 * mechanism), and applied at once by this broker if it hosts the topic.
 */
export function topicConfigRoutes(app: FastifyInstance, { server }: AdminContext): void {
  app.get<{ Params: { name: string } }>('/v1/topics/:name/configs', { schema: getConfigsSchema }, async (request) => {
    const { name } = request.params;
    checkTopicName(name);
    if (!(await server.zk.getTopicAssignment(name))) throw unknownTopic(name);
    return { name, configs: await server.zk.getTopicConfig(name) };
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
    if (!(await server.zk.getTopicAssignment(name))) throw unknownTopic(name);
    const configs = { ...(await server.zk.getTopicConfig(name)), ...set };
    for (const key of remove) delete configs[key];
    await server.zk.setTopicConfig(name, configs);
    await server.zk.zk.create(`${configChangesPath}/config_change_`, encodeConfigChangeNotification(`topics/${name}`), 'persistent_sequential');
    if (server.metadataCache.partitions(name).some((p) => server.replicaManager.getPartition(name, p.partition))) server.topicConfigs.set(name, configs);
    request.log.info({ topic: name, set, delete: remove }, 'topic configs altered');
    return { name, configs };
  });
}
