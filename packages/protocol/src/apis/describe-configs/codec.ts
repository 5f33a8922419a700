import type { ApiVersionCodec } from '../../api.js';
import { ConfigResourceType, ConfigSource } from '../config-resources.js';
import type { Reader } from '../../primitives/reader.js';
import type { DescribeConfigsRequest, DescribeConfigsResourceResult, DescribeConfigsResponse, DescribeConfigsResult, DescribeConfigsSynonym } from './types.js';

/** The source a v0 entry implies (v0 has only is_default), as Kafka's clients backfill it. */
function v0Source(isDefault: boolean, resourceType: number): number {
  if (isDefault) return ConfigSource.DEFAULT_CONFIG;
  if (resourceType === ConfigResourceType.TOPIC) return ConfigSource.TOPIC_CONFIG;
  if (resourceType === ConfigResourceType.BROKER) return ConfigSource.STATIC_BROKER_CONFIG;
  return ConfigSource.UNKNOWN;
}

/** DescribeConfigs v0-4: v1 adds include_synonyms, config_source and synonyms; v3 config_type and documentation; v4 is flexible. */
export function describeConfigsCodec(v: number): ApiVersionCodec<DescribeConfigsRequest, DescribeConfigsResponse> {
  const readEntry = (r: Reader, resourceType: number): DescribeConfigsResourceResult => {
    const name = r.string();
    const value = r.nullableString();
    const readOnly = r.bool();
    const isDefault = v === 0 ? r.bool() : undefined;
    const configSource = v >= 1 ? r.int8() : v0Source(isDefault!, resourceType);
    const isSensitive = r.bool();
    const synonyms =
      v >= 1
        ? r.array((r): DescribeConfigsSynonym => {
            const s = { name: r.string(), value: r.nullableString(), source: r.int8() };
            r.tags();
            return s;
          }, 4)
        : [];
    const configType = v >= 3 ? r.int8() : 0;
    const documentation = v >= 3 ? r.nullableString() : null;
    r.tags();
    const entry: DescribeConfigsResourceResult = { name, value, readOnly, configSource, isSensitive, synonyms, configType, documentation };
    if (v === 0) entry.isDefault = isDefault!;
    return entry;
  };

  return {
    apiKey: 32,
    version: v,
    flexible: v >= 4,
    encodeRequest(w, req) {
      w.array(req.resources, (w, res) => {
        w.int8(res.resourceType).string(res.resourceName);
        w.nullableArray(res.configurationKeys, (w, k) => w.string(k));
        w.tags();
      });
      if (v >= 1) w.bool(req.includeSynonyms ?? false);
      if (v >= 3) w.bool(req.includeDocumentation ?? false);
      w.tags();
    },
    decodeRequest(r) {
      const resources = r.array((r) => {
        const res = { resourceType: r.int8(), resourceName: r.string(), configurationKeys: r.nullableArray((r) => r.string(), 1) };
        r.tags();
        return res;
      }, 3);
      const includeSynonyms = v >= 1 ? r.bool() : false;
      const includeDocumentation = v >= 3 ? r.bool() : false;
      r.tags();
      return { resources, includeSynonyms, includeDocumentation };
    },
    encodeResponse(w, res) {
      w.int32(res.throttleTimeMs);
      w.array(res.results, (w, result) => {
        w.int16(result.errorCode).nullableString(result.errorMessage).int8(result.resourceType).string(result.resourceName);
        w.array(result.configs, (w, c) => {
          w.string(c.name).nullableString(c.value).bool(c.readOnly);
          if (v === 0) w.bool(c.isDefault ?? c.configSource === ConfigSource.DEFAULT_CONFIG);
          if (v >= 1) w.int8(c.configSource);
          w.bool(c.isSensitive);
          if (v >= 1) w.array(c.synonyms ?? [], (w, s) => w.string(s.name).nullableString(s.value).int8(s.source).tags());
          if (v >= 3) w.int8(c.configType ?? 0).nullableString(c.documentation ?? null);
          w.tags();
        });
        w.tags();
      });
      w.tags();
    },
    decodeResponse(r) {
      const throttleTimeMs = r.int32();
      const results = r.array((r): DescribeConfigsResult => {
        const errorCode = r.int16();
        const errorMessage = r.nullableString();
        const resourceType = r.int8();
        const resourceName = r.string();
        const configs = r.array((r) => readEntry(r, resourceType), 6);
        r.tags();
        return { errorCode, errorMessage, resourceType, resourceName, configs };
      }, 7); // flexible: error code, null message, type, "" (the broker default), no configs, tags
      r.tags();
      return { throttleTimeMs, results };
    },
  };
}
