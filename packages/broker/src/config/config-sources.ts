import { readFileSync } from 'node:fs';
import { ConfigError } from '@gregor/common';
import { parseProperties } from './properties.js';

/** Settings from a server.properties file. */
export function readPropertiesFile(path: string): Map<string, string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`Cannot read configuration file ${path}: ${(err as Error).message}`);
  }
  return parseProperties(text);
}

/** Variables of Kafka's start scripts and images that are not broker settings. */
const NOT_SETTINGS = /^KAFKA_(OPTS|HEAP_OPTS|JVM_PERFORMANCE_OPTS|GC_LOG_OPTS|LOG4J_OPTS|JMX_OPTS|JMX_HOSTNAME|DEBUG|VERSION|HOME|LOG4J_ROOT_LOGLEVEL|LOG4J_LOGGERS|TOOLS_LOG4J_LOGLEVEL)$/;

/**
 * Settings from the environment, in the conventions of the common Kafka images:
 * - Confluent's and Kafka's: KAFKA_LOG_DIRS -> log.dirs (prefix KAFKA_, lower case, '_' -> '.',
 *   '__' -> '_' and '___' -> '-' for names with underscores or dashes);
 * - Bitnami's: KAFKA_CFG_LOG_DIRS -> log.dirs (prefix KAFKA_CFG_, same rules), which win over the former.
 * Script variables such as KAFKA_HEAP_OPTS are not settings and are skipped.
 */
export function propertiesFromEnv(env: NodeJS.ProcessEnv): Map<string, string> {
  const plain = new Map<string, string>();
  const bitnami = new Map<string, string>();
  for (const [k, v] of Object.entries(env)) {
    if (!k.startsWith('KAFKA_') || v === undefined || NOT_SETTINGS.test(k)) continue;
    if (k.startsWith('KAFKA_CFG_')) bitnami.set(envToName(k.slice(10)), v);
    else plain.set(envToName(k.slice(6)), v);
  }
  return new Map([...plain, ...bitnami]);
}

function envToName(s: string): string {
  return s.toLowerCase().replace(/___/g, '\u0001').replace(/__/g, '\u0000').replace(/_/g, '.').replace(/\u0000/g, '_').replace(/\u0001/g, '-');
}

/** `--override key=value` flags (as kafka-server-start.sh takes them). */
export function propertiesFromOverrides(overrides: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const o of overrides) {
    const i = o.indexOf('=');
    if (i <= 0) throw new ConfigError(`Invalid override "${o}": expected key=value`);
    out.set(o.slice(0, i).trim(), o.slice(i + 1));
  }
  return out;
}
