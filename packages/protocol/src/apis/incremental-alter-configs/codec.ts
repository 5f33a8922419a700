import type { ApiVersionCodec } from '../../api.js';
import { readAlterConfigsResponse, writeAlterConfigsResponse } from '../alter-configs/codec.js';
import type { IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse } from './types.js';

/** IncrementalAlterConfigs v0-1 (KIP-339); v1 is flexible. The response is AlterConfigs'. */
export function incrementalAlterConfigsCodec(v: number): ApiVersionCodec<IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse> {
  return {
    apiKey: 44,
    version: v,
    flexible: v >= 1,
    encodeRequest(w, req) {
      w.array(req.resources, (w, res) => {
        w.int8(res.resourceType).string(res.resourceName);
        w.array(res.configs, (w, c) => w.string(c.name).int8(c.configOperation).nullableString(c.value).tags());
        w.tags();
      });
      w.bool(req.validateOnly).tags();
    },
    decodeRequest(r) {
      const resources = r.array((r) => {
        const resourceType = r.int8();
        const resourceName = r.string();
        const configs = r.array((r) => {
          const c = { name: r.string(), configOperation: r.int8(), value: r.nullableString() };
          r.tags();
          return c;
        }, 3);
        r.tags();
        return { resourceType, resourceName, configs };
      }, 3);
      const validateOnly = r.bool();
      r.tags();
      return { resources, validateOnly };
    },
    encodeResponse: writeAlterConfigsResponse,
    decodeResponse: readAlterConfigsResponse,
  };
}
