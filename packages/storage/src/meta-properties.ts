import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '@gregor/common';
import { fsyncDir } from './checkpoint-file.js';

export const META_PROPERTIES_FILE = 'meta.properties';

export interface BrokerMetadata {
  brokerId: number;
  clusterId?: string;
}

/** Reads `meta.properties` (Java properties: `version=0`, `broker.id`, `cluster.id`), or null if absent. */
export function readMetaProperties(logDir: string): BrokerMetadata | null {
  const path = join(logDir, META_PROPERTIES_FILE);
  if (!existsSync(path)) return null;
  const props = new Map<string, string>();
  for (const raw of readFileSync(path, 'utf8').split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith('!')) continue;
    const eq = line.indexOf('=');
    if (eq > 0) props.set(line.slice(0, eq).trim(), line.slice(eq + 1).trim());
  }
  const brokerId = Number(props.get('broker.id'));
  if (props.get('version') !== '0' || !Number.isInteger(brokerId)) {
    throw new ConfigError(`${path}: expected version=0 and an integer broker.id`);
  }
  const clusterId = props.get('cluster.id');
  return clusterId ? { brokerId, clusterId } : { brokerId };
}

export function writeMetaProperties(logDir: string, meta: BrokerMetadata): void {
  const path = join(logDir, META_PROPERTIES_FILE);
  const lines = ['#', `#${new Date().toUTCString()}`, 'version=0', `broker.id=${meta.brokerId}`];
  if (meta.clusterId) lines.push(`cluster.id=${meta.clusterId}`);
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, lines.join('\n') + '\n');
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  fsyncDir(logDir);
}
