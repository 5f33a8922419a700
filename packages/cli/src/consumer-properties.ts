import { readFileSync } from 'node:fs';
import { parseProperties } from '@gregor/broker/config/properties';
import { keyValues } from './args.js';
import { UsageError } from './usage-error.js';

/** Consumer settings from `--consumer.config FILE` then `--consumer-property k=v` (later wins), Kafka's names. */
export function consumerProperties(configFile: string | undefined, pairs: readonly string[] | undefined, usage: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (configFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(configFile, 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read ${configFile}: ${(error as Error).message}`, usage);
    }
    for (const [k, v] of parseProperties(text)) out[k] = v;
  }
  return { ...out, ...keyValues(pairs, 'consumer-property', usage) };
}
