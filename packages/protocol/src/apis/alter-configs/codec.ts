import type { ApiVersionCodec } from '../../api.js';
import type { Reader } from '../../primitives/reader.js';
import type { Writer } from '../../primitives/writer.js';
import type { AlterConfigsRequest, AlterConfigsResourceResponse, AlterConfigsResponse } from './types.js';

/** The response shared by AlterConfigs and IncrementalAlterConfigs. */
export function writeAlterConfigsResponse(w: Writer, res: AlterConfigsResponse): void {
  w.int32(res.throttleTimeMs);
  w.array(res.responses, (w, r) => w.int16(r.errorCode).nullableString(r.errorMessage).int8(r.resourceType).string(r.resourceName).tags());
  w.tags();
}

export function readAlterConfigsResponse(r: Reader): AlterConfigsResponse {
  const throttleTimeMs = r.int32();
  const responses = r.array((r): AlterConfigsResourceResponse => {
    const x = { errorCode: r.int16(), errorMessage: r.nullableString(), resourceType: r.int8(), resourceName: r.string() };
    r.tags();
    return x;
  }, 5);
  r.tags();
  return { throttleTimeMs, responses };
}

/** AlterConfigs v0-2: v1 only changed throttling, v2 is flexible. */
export function alterConfigsCodec(v: number): ApiVersionCodec<AlterConfigsRequest, AlterConfigsResponse> {
  return {
    apiKey: 33,
    version: v,
    flexible: v >= 2,
    encodeRequest(w, req) {
      w.array(req.resources, (w, res) => {
        w.int8(res.resourceType).string(res.resourceName);
        w.array(res.configs, (w, c) => w.string(c.name).nullableString(c.value).tags());
        w.tags();
      });
      w.bool(req.validateOnly).tags();
    },
    decodeRequest(r) {
      const resources = r.array((r) => {
        const resourceType = r.int8();
        const resourceName = r.string();
        const configs = r.array((r) => {
          const c = { name: r.string(), value: r.nullableString() };
          r.tags();
          return c;
        }, 2);
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
