import { brokerConfigDocs, knownConfigNames } from './broker-config.js';
import { isDynamicallyUpdatable } from './dynamic-broker-config.js';
import { topicConfigDocs } from './topic-config.js';

/** Renders docs/configuration.md from the setting tables (a test keeps the file in step). */
export function renderConfigurationDoc(): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  const lines = [
    '# Configuration',
    '',
    '<!-- generated from packages/broker/src/config/*.ts by `node scripts/gen-config-docs.mjs`; do not edit -->',
    '',
    "Broker settings use Kafka's names. Precedence: the properties file given with `--config`, then",
    'environment variables (`KAFKA_` + name in upper case with `.` as `_`, e.g. `KAFKA_LOG_DIRS`; `__` for `_`',
    "and `___` for `-`; Bitnami's `KAFKA_CFG_` prefix too, which wins), then `--override key=value` flags.",
    "The file is read by Java's `.properties` rules. An invalid value stops the broker with a message naming",
    'the setting; an unknown name is ignored with a warning (and the nearest known name, for typos), as Kafka does.',
    '',
    '## Broker settings',
    '',
    '| name | type | default | meaning |',
    '|---|---|---|---|',
    ...brokerConfigDocs()
      .filter((d) => !d.compat)
      .map((d) => `| \`${d.name}\` | ${d.type} | ${d.default === '' ? '' : `\`${esc(d.default)}\``} | ${esc(d.doc)} |`),
    '',
    "Accepted for compatibility with Kafka's stock `server.properties`, with no effect in gregor:",
    brokerConfigDocs()
      .filter((d) => d.compat)
      .map((d) => `\`${d.name}\``)
      .join(', ') + '.',
    '',
    '## Dynamic broker configs',
    '',
    "Some broker settings can be changed while the cluster runs, as in Kafka (KIP-226), with Kafka's admin",
    'APIs: `kafka-configs.sh --bootstrap-server B --entity-type brokers --entity-name <id> --alter --add-config k=v`',
    '(one broker) or `--entity-default` (every broker), AdminClient `alterConfigs`/`incrementalAlterConfigs`',
    '(resource BROKER, name = the broker id, or `""` for the cluster-wide default), or a web console.',
    '',
    '- Stored in ZooKeeper as Kafka stores them: `/config/brokers/<id>` and `/config/brokers/<default>`, each',
    '  `{"version":1,"config":{"name":"value"}}`, announced by a sequential `/config/changes/config_change_<n>`',
    '  node `{"version":2,"entity_path":"brokers/<id>"}` (or `brokers/<default>`). Every broker reads both at',
    '  startup, before it opens its logs, and follows the notifications while it runs.',
    '- Precedence: per-broker > `<default>` > the properties file (with environment and `--override`) > the',
    '  built-in default. DescribeConfigs shows where each value comes from (`config_source`) and, with',
    '  `include_synonyms`, every level where it is set.',
    '- Topic defaults apply at once to every log without its own override (retention, segment size and age,',
    '  index sizes, `max.message.bytes` via `message.max.bytes`, `min.insync.replicas`, cleanup policy). The',
    '  controller reads `unclean.leader.election.enable` at each election, and when it is turned on it elects',
    '  leaders for offline partitions at once.',
    "- Changeable at run time (per broker or at `<default>`): " +
      knownConfigNames()
        .filter(isDynamicallyUpdatable)
        .map((n) => `\`${n}\``)
        .join(', ') +
      '. Those in the compatibility list above are accepted and stored, as Kafka would, and change nothing in gregor.',
    '- Every other setting is read-only: AlterConfigs answers `INVALID_REQUEST` "Cannot update these configs',
    '  dynamically: <names>". Listener and security settings (`listeners`, `advertised.listeners`, `ssl.*`,',
    '  `sasl.*`, `listener.name.*`) are per-broker in Kafka: at `<default>` they are refused with "Cannot update',
    '  these configs at default cluster level, broker id must be specified"; gregor cannot change them at run',
    '  time at all. Unknown names answer `INVALID_CONFIG`, bad values `INVALID_REQUEST` naming the setting.',
    '- AlterConfigs replaces the entity\'s whole override set; IncrementalAlterConfigs applies SET, DELETE,',
    '  APPEND and SUBTRACT (the last two on list settings) to it; `validate_only` checks and writes nothing.',
    '- Secrets (`http.auth.token`) are described with a null value and `is_sensitive=true`.',
    '- `BROKER_LOGGER` resources (log4j loggers) are answered with `INVALID_REQUEST`: gregor logs with pino and',
    '  its level is set with `LOG_LEVEL` at startup.',
    '',
    '## Topic settings',
    '',
    'Given at creation (CreateTopics configs, `gregor topics create --config k=v`, `POST /v1/topics`) and',
    'stored in `/config/topics/<topic>` as overrides of the broker defaults; changed with AlterConfigs or',
    'IncrementalAlterConfigs (`kafka-configs.sh --entity-type topics --alter`) or `PATCH /v1/topics/<topic>/configs`,',
    'each write announced in `/config/changes` and applied by every broker hosting the topic. A topic without',
    'an override follows its broker synonym (e.g. `retention.ms` ← `log.retention.ms`, `max.message.bytes` ←',
    '`message.max.bytes`), including a dynamic value; DescribeConfigs lists the synonyms with `include_synonyms`.',
    '',
    '| name | type | in effect | meaning |',
    '|---|---|---|---|',
    ...topicConfigDocs().map((d) => `| \`${d.name}\` | ${d.type} | ${d.supported ? 'yes' : 'stored only'} | ${esc(d.doc)} |`),
    '',
  ];
  return lines.join('\n');
}
