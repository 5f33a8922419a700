import { Admin, type ConfigEntry, type ConfigOperation, type ConfigResource } from '@gregor/client';
import { ConfigError, topicNameProblem } from '@gregor/common';
import { parseArgs } from 'node:util';
import { readPropertiesFile } from '@gregor/broker/config/config-sources';
import { actionOf, parsed, unknownWord } from '../args.js';
import { cliClient, COMMAND_CONFIG_HELP } from '../client-factory.js';
import { UsageError } from '../usage-error.js';

export const configsUsage = `gregor configs <describe|alter> [options]
gregor configs --describe|--alter [options]     (kafka-configs.sh's flags)

Topic and broker configs over the Kafka protocol (DescribeConfigs, IncrementalAlterConfigs).

  describe   the overrides of an entity (--all: every config with its source); without a name,
             every topic, or every broker and the cluster default
  alter      --add-config k1=v1,k2=[a,b] and/or --delete-config k1,k2 (brackets keep commas in a value)

Entity:
  --entity-type topics|brokers   with --entity-name NAME (a topic, a broker id) or --entity-default
                                 (brokers: the cluster-wide default, /config/brokers/<default>)
  --topic T, --broker ID, --broker-defaults    the same, shorter

Options:
  --bootstrap-server HOST:PORT   a broker to start from (default 127.0.0.1:9092)
${COMMAND_CONFIG_HELP}
  --all                          describe: every config, not only the overrides
  --add-config-file FILE         alter: configs to set from a properties file
  --help, -h`;

const OPTIONS = {
  'bootstrap-server': { type: 'string' },
  'command-config': { type: 'string' },
  'entity-type': { type: 'string' },
  'entity-name': { type: 'string' },
  'entity-default': { type: 'boolean' },
  topic: { type: 'string' },
  broker: { type: 'string' },
  'broker-defaults': { type: 'boolean' },
  all: { type: 'boolean' },
  'add-config': { type: 'string', multiple: true },
  'add-config-file': { type: 'string' },
  'delete-config': { type: 'string', multiple: true },
  describe: { type: 'boolean' },
  alter: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const ACTIONS = ['describe', 'alter'] as const;
const ENTITY_TYPES = ['topics', 'brokers'] as const;
type EntityType = (typeof ENTITY_TYPES)[number];

/** The entity a command line names; name undefined = every entity of the type (describe only). */
interface Entity {
  type: EntityType;
  name: string | undefined;
}

function entityOf(values: { 'entity-type'?: string; 'entity-name'?: string; 'entity-default'?: boolean; topic?: string; broker?: string; 'broker-defaults'?: boolean }): Entity {
  const shortcuts = [values.topic !== undefined, values.broker !== undefined, values['broker-defaults'] === true].filter(Boolean).length;
  const generic = values['entity-type'] !== undefined || values['entity-name'] !== undefined || values['entity-default'] === true;
  if (shortcuts > 1 || (shortcuts === 1 && generic)) throw new UsageError('name one entity: --entity-type/--entity-name, or one of --topic, --broker, --broker-defaults', configsUsage);
  let entity: Entity;
  if (values.topic !== undefined) entity = { type: 'topics', name: values.topic };
  else if (values.broker !== undefined) entity = { type: 'brokers', name: values.broker };
  else if (values['broker-defaults']) entity = { type: 'brokers', name: '' };
  else {
    const type = values['entity-type'];
    if (type === undefined) throw new UsageError('--entity-type is required (topics or brokers)', configsUsage);
    if (!(ENTITY_TYPES as readonly string[]).includes(type)) {
      if (['users', 'clients', 'ips', 'broker-loggers'].includes(type)) throw new UsageError(`entity type ${type} is not supported by gregor: topics and brokers are`, configsUsage);
      throw unknownWord('entity type', type, ENTITY_TYPES, configsUsage);
    }
    if (values['entity-default'] && values['entity-name'] !== undefined) throw new UsageError('--entity-name and --entity-default exclude each other', configsUsage);
    if (values['entity-default'] && type !== 'brokers') throw new UsageError('--entity-default applies to brokers (the cluster-wide default)', configsUsage);
    entity = { type: type as EntityType, name: values['entity-default'] ? '' : values['entity-name'] };
  }
  if (entity.name !== undefined && entity.name !== '') {
    if (entity.type === 'brokers' && !/^\d+$/.test(entity.name)) throw new UsageError(`the entity name for brokers must be a valid integer broker id, found: ${entity.name}`, configsUsage);
    const problem = entity.type === 'topics' ? topicNameProblem(entity.name) : null;
    if (problem) throw new UsageError(`topic name "${entity.name}": ${problem}`, configsUsage);
  }
  return entity;
}

/**
 * kafka-configs' --add-config: "k1=v1,k2=[a,b]" — commas inside brackets belong to the value, the
 * brackets are dropped, keys and values are trimmed.
 */
export function parseConfigsToAdd(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const pairs: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '[') depth++;
    else if (ch === ']') depth = Math.max(0, depth - 1);
    if (ch === ',' && depth === 0) {
      pairs.push(current);
      current = '';
    } else current += ch;
  }
  pairs.push(current);
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0 || pair.slice(0, eq).trim() === '') throw new UsageError(`invalid entity config "${pair}": all configs to be added must be in the format "key=val"`, configsUsage);
    out[pair.slice(0, eq).trim()] = pair.slice(eq + 1).replace(/[[\]]/g, '').trim();
  }
  return out;
}

/** kafka-configs' --delete-config: names separated by commas (repeatable). */
export function parseConfigsToDelete(values: readonly string[] | undefined): string[] {
  return (values ?? []).flatMap((v) => v.split(',')).map((k) => k.trim()).filter((k) => k !== '');
}

const DYNAMIC_SOURCE: Record<string, string> = { topics: 'DYNAMIC_TOPIC_CONFIG', brokers: 'DYNAMIC_BROKER_CONFIG', default: 'DYNAMIC_DEFAULT_BROKER_CONFIG' };

function dynamicSource(e: Entity): string {
  return e.type === 'topics' ? DYNAMIC_SOURCE['topics']! : e.name === '' ? DYNAMIC_SOURCE['default']! : DYNAMIC_SOURCE['brokers']!;
}

/** kafka-configs --describe: "  name=value sensitive=false synonyms={SOURCE:name=value, ...}". */
export function formatConfigEntry(e: ConfigEntry): string {
  const synonyms = e.synonyms.map((s) => `${s.source}:${s.name}=${s.value}`).join(', ');
  return `  ${e.name}=${e.value} sensitive=${e.sensitive} synonyms={${synonyms}}`;
}

function resourceOf(type: EntityType, name: string): ConfigResource {
  return { type: type === 'topics' ? 'topic' : 'broker', name };
}

export async function configsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parsed(() => parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true }), configsUsage, OPTIONS);
  if (values.help) {
    console.log(configsUsage);
    return 0;
  }
  const { action, rest } = actionOf(positionals, values, ACTIONS, configsUsage);
  if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`, configsUsage);
  const entity = entityOf(values);
  const toAdd: Record<string, string> = {};
  const toDelete = parseConfigsToDelete(values['delete-config']);
  if (action === 'alter') {
    if (entity.name === undefined) throw new UsageError(`an entity name must be specified with --alter of ${entity.type}`, configsUsage);
    if (values['add-config-file'] !== undefined) {
      try {
        for (const [k, v] of readPropertiesFile(values['add-config-file'])) toAdd[k] = v;
      } catch (error) {
        throw new UsageError(`--add-config-file: cannot read ${values['add-config-file']}: ${(error as Error).message}`, configsUsage);
      }
    }
    for (const text of values['add-config'] ?? []) Object.assign(toAdd, parseConfigsToAdd(text));
    if (Object.keys(toAdd).length === 0 && toDelete.length === 0) throw new UsageError('alter needs --add-config, --add-config-file or --delete-config', configsUsage);
    const both = toDelete.filter((k) => k in toAdd);
    if (both.length > 0) throw new UsageError(`configs both added and deleted: ${both.join(', ')}`, configsUsage);
  } else {
    for (const flag of ['add-config', 'add-config-file', 'delete-config'] as const) {
      if (values[flag] !== undefined) throw new UsageError(`--${flag} applies to --alter`, configsUsage);
    }
  }

  const client = cliClient(values['bootstrap-server'], values['command-config']);
  const admin = new Admin(client);
  try {
    if (action === 'describe') return await describe(admin, entity, values.all ?? false);
    return await alter(admin, { type: entity.type, name: entity.name! }, toAdd, toDelete);
  } finally {
    await client.close();
  }
}

async function describe(admin: Admin, entity: Entity, all: boolean): Promise<number> {
  let names: string[];
  if (entity.name !== undefined) names = [entity.name];
  else if (entity.type === 'topics') names = await admin.listTopics();
  else names = [...(await brokerIds(admin)).map(String), ''];
  const descriptions = await admin.describeConfigs(names.map((n) => resourceOf(entity.type, n)));
  for (const d of descriptions) {
    if (d.error) throw d.error;
    const e: Entity = { type: entity.type, name: d.resource.name };
    if (d.resource.name === '') console.log(`Default configs for ${entity.type} in the cluster are:`);
    else console.log(`${all ? 'All' : 'Dynamic'} configs for ${entity.type.slice(0, -1)} ${d.resource.name} are:`);
    const source = dynamicSource(e);
    for (const entry of d.entries) if (all || entry.source === source) console.log(formatConfigEntry(entry));
  }
  return 0;
}

async function brokerIds(admin: Admin): Promise<number[]> {
  return (await admin.describeCluster()).brokers.map((b) => b.nodeId).sort((a, b) => a - b);
}

async function alter(admin: Admin, entity: { type: EntityType; name: string }, toAdd: Record<string, string>, toDelete: string[]): Promise<number> {
  const resource = resourceOf(entity.type, entity.name);
  // As kafka-configs: deleting a config that is not overridden is a mistake, reported before any change.
  if (toDelete.length > 0) {
    const [current] = await admin.describeConfigs([resource]);
    if (current!.error) throw current!.error;
    const overridden = new Set(current!.entries.filter((e) => e.source === dynamicSource(entity)).map((e) => e.name));
    const invalid = toDelete.filter((k) => !overridden.has(k));
    if (invalid.length > 0) throw new ConfigError(`Invalid config(s): ${invalid.join(',')} (not overridden for ${entity.type.slice(0, -1)} ${entity.name || '(default)'})`);
  }
  const ops: ConfigOperation[] = [...Object.entries(toAdd).map(([name, value]) => ({ name, op: 'set' as const, value })), ...toDelete.map((name) => ({ name, op: 'delete' as const }))];
  const [result] = await admin.incrementalAlterConfigs([{ resource, ops }]);
  if (result!.error) throw result!.error;
  console.log(entity.name === '' ? `Completed updating default config for ${entity.type} in the cluster.` : `Completed updating config for ${entity.type.slice(0, -1)} ${entity.name}.`);
  return 0;
}
