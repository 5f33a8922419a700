export { Writer, type TaggedField } from './primitives/writer.js';
export { Reader } from './primitives/reader.js';
export { readInt64Number } from './primitives/int64.js';
export { defineApi, sameAs, type ApiDefinition, type ApiVersionCodec } from './api.js';
export { decodeRequestHeader, encodeRequestHeader, encodeResponseHeader, decodeResponseHeader, writeFrame, type RequestHeader } from './header.js';
export { FrameReader, FrameSizeError, type FrameReaderOptions } from './framing/frame-reader.js';
export { DirectFrameReceiver } from './framing/direct-frame-receiver.js';
export {
  UnsupportedVersionError,
  responseHeaderFlexible,
  encodeRequestFrame,
  encodeResponseFrame,
  readRequestHeader,
  decodeRequestFrame,
  readResponseCorrelationId,
  decodeResponseFrame,
  type ClientRequestHeader,
  type DecodedRequest,
} from './framing/frames.js';
export {
  ApiKey,
  getApi,
  allApis,
  supportedApiVersions,
  type AnyApiDefinition,
  type SupportedApiVersion,
  type ApiName,
  type ApiKeyValue,
  type ApiDefinitionOf,
  type ApiRequestOf,
  type ApiResponseOf,
} from './api-table.js';
export * from './record-batch/index.js';

export * from './apis/api-versions/index.js';
export * from './apis/metadata/index.js';
export * from './apis/produce/index.js';
export * from './apis/fetch/index.js';
export * from './apis/list-offsets/index.js';
export * from './apis/create-topics/index.js';
export * from './apis/delete-topics/index.js';
export * from './apis/create-partitions/index.js';
export * from './apis/leader-and-isr/index.js';
export * from './apis/update-metadata/index.js';
export * from './apis/stop-replica/index.js';
export * from './apis/controlled-shutdown/index.js';
export * from './apis/offsets-for-leader-epoch/index.js';
export * from './apis/find-coordinator/index.js';
export * from './apis/join-group/index.js';
export * from './apis/sync-group/index.js';
export * from './apis/heartbeat/index.js';
export * from './apis/leave-group/index.js';
export * from './apis/offset-commit/index.js';
export * from './apis/offset-fetch/index.js';
export * from './apis/describe-groups/index.js';
export * from './apis/list-groups/index.js';
export * from './apis/delete-groups/index.js';
export * from './apis/elect-leaders/index.js';
export * from './apis/alter-partition-reassignments/index.js';
export * from './apis/list-partition-reassignments/index.js';
export * from './apis/delete-records/index.js';
export * from './apis/describe-log-dirs/index.js';
export * from './apis/offset-delete/index.js';
export * from './apis/describe-configs/index.js';
export * from './apis/alter-configs/index.js';
export * from './apis/incremental-alter-configs/index.js';
export * from './apis/config-resources.js';
export * from './apis/sasl-handshake/index.js';
export * from './apis/sasl-authenticate/index.js';
export * from './apis/describe-acls/index.js';
export * from './apis/create-acls/index.js';
export * from './apis/delete-acls/index.js';
export * from './apis/acl-fields.js';
export * from './apis/init-producer-id/index.js';
export { flattenPartitionStates, groupPartitionStates, type TopicGroup } from './apis/topic-grouping.js';
export * from './sasl/index.js';
