import type { ApiVersionCodec } from '../../api.js';
import type { Reader } from '../../primitives/reader.js';
import { readInt32Array, writeInt32Array } from '../fields.js';
import type { CreatableTopic, CreatableTopicConfigs, CreatableTopicResult, CreateTopicsRequest, CreateTopicsResponse } from './types.js';

const TOPIC_CONFIG_ERROR_CODE_TAG = 0;

/**
 * CreateTopics v0-5; v5 is flexible and its response echoes partitions, replication factor and the
 * topic's effective configs (KIP-525), with topic_config_error_code as tagged field 0 (written only
 * when non-zero, its default).
 */
export function createTopicsCodec(v: number): ApiVersionCodec<CreateTopicsRequest, CreateTopicsResponse> {
  return {
    apiKey: 19,
    version: v,
    flexible: v >= 5,
    encodeRequest(w, req) {
      w.array(req.topics, (w, t) => {
        w.string(t.name).int32(t.numPartitions).int16(t.replicationFactor);
        w.array(t.assignments, (w, a) => {
          w.int32(a.partitionIndex);
          writeInt32Array(w, a.brokerIds);
          w.tags();
        });
        w.array(t.configs, (w, c) => w.string(c.name).nullableString(c.value).tags());
        w.tags();
      });
      w.int32(req.timeoutMs);
      if (v >= 1) w.bool(req.validateOnly ?? false);
      w.tags();
    },
    decodeRequest(r) {
      const topics = r.array((r): CreatableTopic => {
        const name = r.string();
        const numPartitions = r.int32();
        const replicationFactor = r.int16();
        const assignments = r.array((r) => {
          const a = { partitionIndex: r.int32(), brokerIds: readInt32Array(r) };
          r.tags();
          return a;
        }, 5);
        const configs = r.array((r) => {
          const c = { name: r.string(), value: r.nullableString() };
          r.tags();
          return c;
        }, 2);
        r.tags();
        return { name, numPartitions, replicationFactor, assignments, configs };
      }, 9);
      const timeoutMs = r.int32();
      const validateOnly = v >= 1 ? r.bool() : false;
      r.tags();
      return { topics, timeoutMs, validateOnly };
    },
    encodeResponse(w, res) {
      if (v >= 2) w.int32(res.throttleTimeMs ?? 0);
      w.array(res.topics, (w, t) => {
        w.string(t.name).int16(t.errorCode);
        if (v >= 1) w.nullableString(t.errorMessage ?? null);
        if (v >= 5) {
          w.int32(t.numPartitions ?? -1).int16(t.replicationFactor ?? -1);
          w.nullableArray(t.configs === undefined ? [] : t.configs, (w, c) => {
            w.string(c.name).nullableString(c.value).bool(c.readOnly).int8(c.configSource).bool(c.isSensitive).tags();
          });
        }
        const configError = t.topicConfigErrorCode ?? 0;
        w.tags([{ tag: TOPIC_CONFIG_ERROR_CODE_TAG, write: configError !== 0 ? (w) => w.int16(configError) : undefined }]);
      });
      w.tags();
    },
    decodeResponse(r) {
      const throttleTimeMs = v >= 2 ? r.int32() : 0;
      const topics = r.array((r): CreatableTopicResult => {
        const name = r.string();
        const errorCode = r.int16();
        const errorMessage = v >= 1 ? r.nullableString() : null;
        const numPartitions = v >= 5 ? r.int32() : -1;
        const replicationFactor = v >= 5 ? r.int16() : -1;
        const configs = v >= 5 ? r.nullableArray(readConfig, 5) : [];
        let topicConfigErrorCode = 0;
        r.tags((tag, field) => {
          if (tag === TOPIC_CONFIG_ERROR_CODE_TAG) topicConfigErrorCode = field.int16();
        });
        return { name, errorCode, errorMessage, topicConfigErrorCode, numPartitions, replicationFactor, configs };
      }, 3);
      r.tags();
      return { throttleTimeMs, topics };
    },
  };
}

function readConfig(r: Reader): CreatableTopicConfigs {
  const c = { name: r.string(), value: r.nullableString(), readOnly: r.bool(), configSource: r.int8(), isSensitive: r.bool() };
  r.tags();
  return c;
}
