import type { ApiDefinition } from './api.js';
import { ApiVersions } from './apis/api-versions/index.js';
import { CreateTopics } from './apis/create-topics/index.js';
import { Fetch } from './apis/fetch/index.js';
import { ListOffsets } from './apis/list-offsets/index.js';
import { Metadata } from './apis/metadata/index.js';
import { Produce } from './apis/produce/index.js';

export type AnyApiDefinition = ApiDefinition<any, any>;

/** Every API gregor speaks, by key: the one list the broker's ApiVersions answer is built from. */
const API_TABLE: ReadonlyMap<number, AnyApiDefinition> = new Map<number, AnyApiDefinition>(
  [Produce, Fetch, ListOffsets, Metadata, ApiVersions, CreateTopics].map((api) => [api.apiKey, api]),
);

export function getApi(apiKey: number): AnyApiDefinition | undefined {
  return API_TABLE.get(apiKey);
}

export function allApis(): AnyApiDefinition[] {
  return [...API_TABLE.values()].sort((a, b) => a.apiKey - b.apiKey);
}

export interface SupportedApiVersion {
  apiKey: number;
  minVersion: number;
  maxVersion: number;
}

/** The ranges to advertise in an ApiVersions response, sorted by api key. */
export function supportedApiVersions(): SupportedApiVersion[] {
  return allApis().map(({ apiKey, minVersion, maxVersion }) => ({ apiKey, minVersion, maxVersion }));
}
