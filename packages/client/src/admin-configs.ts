import { ErrorCode, errorName, KafkaProtocolError } from '@gregor/common';
import { AlterConfigOpType, AlterConfigs, ConfigResourceType, ConfigSource, DescribeConfigs, IncrementalAlterConfigs, type AlterConfigsResponse, type ApiDefinition } from '@gregor/protocol';
import type { KafkaClient } from './cluster.js';
import { retry, type SendOptions } from '@gregor/net';

/** What a config belongs to: a topic, or a broker by id ("" = the cluster-wide default, kafka-configs --entity-default). */
export interface ConfigResource {
  type: 'topic' | 'broker';
  name: string;
}

/** Kafka's ConfigEntry.ConfigSource names (the Java client's), as kafka-configs prints them. */
export type ConfigSourceName =
  | 'DYNAMIC_TOPIC_CONFIG'
  | 'DYNAMIC_BROKER_CONFIG'
  | 'DYNAMIC_DEFAULT_BROKER_CONFIG'
  | 'STATIC_BROKER_CONFIG'
  | 'DEFAULT_CONFIG'
  | 'DYNAMIC_BROKER_LOGGER_CONFIG'
  | 'UNKNOWN';

const SOURCE_NAMES: Record<number, ConfigSourceName> = {
  [ConfigSource.TOPIC_CONFIG]: 'DYNAMIC_TOPIC_CONFIG',
  [ConfigSource.DYNAMIC_BROKER_CONFIG]: 'DYNAMIC_BROKER_CONFIG',
  [ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG]: 'DYNAMIC_DEFAULT_BROKER_CONFIG',
  [ConfigSource.STATIC_BROKER_CONFIG]: 'STATIC_BROKER_CONFIG',
  [ConfigSource.DEFAULT_CONFIG]: 'DEFAULT_CONFIG',
  [ConfigSource.DYNAMIC_BROKER_LOGGER_CONFIG]: 'DYNAMIC_BROKER_LOGGER_CONFIG',
};

export interface ConfigSynonym {
  name: string;
  value: string | null;
  source: ConfigSourceName;
}

export interface ConfigEntry {
  name: string;
  /** null for sensitive values. */
  value: string | null;
  source: ConfigSourceName;
  readOnly: boolean;
  sensitive: boolean;
  /** Most preferred first (the entry's own source first). */
  synonyms: ConfigSynonym[];
}

export interface ConfigDescription {
  resource: ConfigResource;
  entries: ConfigEntry[];
  error: KafkaProtocolError | null;
}

/** One resource's outcome of an alter: `error` null on success. */
export interface AlterConfigsResult {
  resource: ConfigResource;
  error: KafkaProtocolError | null;
}

/** IncrementalAlterConfigs operations (AlterConfigOp.OpType); append/subtract are for list configs. */
export type ConfigOperation = { name: string; op: 'set'; value: string } | { name: string; op: 'delete' } | { name: string; op: 'append' | 'subtract'; value: string };

const OP_CODES = { set: AlterConfigOpType.SET, delete: AlterConfigOpType.DELETE, append: AlterConfigOpType.APPEND, subtract: AlterConfigOpType.SUBTRACT } as const;

function resourceType(r: ConfigResource): number {
  return r.type === 'topic' ? ConfigResourceType.TOPIC : ConfigResourceType.BROKER;
}

/**
 * Where a resource's request goes, as Kafka's AdminClient routes it: a broker's own configs to that
 * broker (only it answers for itself), topics and the cluster default to any broker.
 */
function brokerOf(r: ConfigResource): number | null {
  if (r.type !== 'broker' || r.name === '') return null;
  if (!/^\d+$/.test(r.name)) throw new KafkaProtocolError(ErrorCode.INVALID_REQUEST, `a broker config resource is a broker id or "" (the default), got "${r.name}"`);
  return Number(r.name);
}

/** Requests grouped by destination: null = any broker. */
function byDestination<T extends { resource: ConfigResource }>(items: readonly T[]): Map<number | null, T[]> {
  const out = new Map<number | null, T[]>();
  for (const item of items) {
    const to = brokerOf(item.resource);
    out.set(to, [...(out.get(to) ?? []), item]);
  }
  return out;
}

/** Sends to one broker (null: any), retrying connection failures; a broker new to the client is looked up first. */
export function sendToBroker<Req, Res>(client: KafkaClient, to: number | null, api: ApiDefinition<Req, Res>, request: Req, options?: SendOptions): Promise<Res> {
  return retry(async () => {
    if (to === null) return client.sendToAny(api, request, options);
    if (!client.broker(to)) await client.refreshMetadata([]);
    return client.sendTo(to, api, request, options);
  }, client.retryOptions);
}

function failure(resource: ConfigResource, code: number, message: string | null | undefined): KafkaProtocolError | null {
  if (code === ErrorCode.NONE) return null;
  return new KafkaProtocolError(code, `${resource.type} ${resource.name === '' ? '(default)' : resource.name}: ${message || errorName(code)}`);
}

/** DescribeConfigs with synonyms; each resource gets its entries or its error. */
export async function describeConfigs(client: KafkaClient, resources: readonly ConfigResource[]): Promise<ConfigDescription[]> {
  const results = new Map<ConfigResource, ConfigDescription>();
  await Promise.all(
    [...byDestination(resources.map((resource) => ({ resource })))].map(async ([to, list]) => {
      const res = await sendToBroker(client, to, DescribeConfigs, {
        resources: list.map(({ resource }) => ({ resourceType: resourceType(resource), resourceName: resource.name, configurationKeys: null })),
        includeSynonyms: true,
      });
      for (const { resource } of list) {
        const r = res.results.find((x) => x.resourceType === resourceType(resource) && x.resourceName === resource.name);
        if (!r) {
          results.set(resource, { resource, entries: [], error: failure(resource, ErrorCode.UNKNOWN_SERVER_ERROR, 'no result in the response') });
          continue;
        }
        const entries = r.configs.map((c) => ({
          name: c.name,
          value: c.value,
          source: SOURCE_NAMES[c.configSource] ?? 'UNKNOWN',
          readOnly: c.readOnly,
          sensitive: c.isSensitive,
          synonyms: (c.synonyms ?? []).map((s) => ({ name: s.name, value: s.value, source: SOURCE_NAMES[s.source] ?? 'UNKNOWN' })),
        }));
        results.set(resource, { resource, entries, error: failure(resource, r.errorCode, r.errorMessage) });
      }
    }),
  );
  return resources.map((r) => results.get(r)!);
}

function alterResults(resources: readonly ConfigResource[], res: AlterConfigsResponse): AlterConfigsResult[] {
  return resources.map((resource) => {
    const r = res.responses.find((x) => x.resourceType === resourceType(resource) && x.resourceName === resource.name);
    return { resource, error: r ? failure(resource, r.errorCode, r.errorMessage) : failure(resource, ErrorCode.UNKNOWN_SERVER_ERROR, 'no result in the response') };
  });
}

/** AlterConfigs: each resource's whole override set is replaced by `configs`. */
export async function alterConfigs(
  client: KafkaClient,
  changes: readonly { resource: ConfigResource; configs: Record<string, string | null> }[],
  validateOnly = false,
): Promise<AlterConfigsResult[]> {
  const out = new Map<ConfigResource, AlterConfigsResult>();
  await Promise.all(
    [...byDestination(changes)].map(async ([to, list]) => {
      const res = await sendToBroker(client, to, AlterConfigs, {
        resources: list.map((c) => ({ resourceType: resourceType(c.resource), resourceName: c.resource.name, configs: Object.entries(c.configs).map(([name, value]) => ({ name, value })) })),
        validateOnly,
      });
      for (const r of alterResults(list.map((c) => c.resource), res)) out.set(r.resource, r);
    }),
  );
  return changes.map((c) => out.get(c.resource)!);
}

/** IncrementalAlterConfigs: set, delete, append to or subtract from single configs; others stay. */
export async function incrementalAlterConfigs(
  client: KafkaClient,
  changes: readonly { resource: ConfigResource; ops: readonly ConfigOperation[] }[],
  validateOnly = false,
): Promise<AlterConfigsResult[]> {
  const out = new Map<ConfigResource, AlterConfigsResult>();
  await Promise.all(
    [...byDestination(changes)].map(async ([to, list]) => {
      const res = await sendToBroker(client, to, IncrementalAlterConfigs, {
        resources: list.map((c) => ({
          resourceType: resourceType(c.resource),
          resourceName: c.resource.name,
          configs: c.ops.map((o) => ({ name: o.name, configOperation: OP_CODES[o.op], value: o.op === 'delete' ? null : o.value })),
        })),
        validateOnly,
      });
      for (const r of alterResults(list.map((c) => c.resource), res)) out.set(r.resource, r);
    }),
  );
  return changes.map((c) => out.get(c.resource)!);
}
