import { brokerConfigDocs } from './broker-config.js';
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
    '## Topic settings',
    '',
    'Given at creation (CreateTopics configs, `gregor topics create --config k=v`, `POST /v1/topics`) and',
    'stored in `/config/topics/<topic>` as overrides of the broker defaults.',
    '',
    '| name | type | in effect | meaning |',
    '|---|---|---|---|',
    ...topicConfigDocs().map((d) => `| \`${d.name}\` | ${d.type} | ${d.supported ? 'yes' : 'stored only'} | ${esc(d.doc)} |`),
    '',
  ];
  return lines.join('\n');
}
