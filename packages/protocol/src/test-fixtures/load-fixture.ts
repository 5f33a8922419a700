import { readFileSync } from 'node:fs';

/** Loads a captured kafkajs fixture (see README.md) as a Buffer. */
export function loadFixture(name: string): Buffer {
  const json = JSON.parse(readFileSync(new URL(`./kafkajs/${name}.json`, import.meta.url), 'utf8')) as { data: number[] };
  return Buffer.from(json.data);
}
