// First flexible version (request header v2, response header v1; compact strings and arrays; tagged fields).
// CreateTopics Request (Version: 5) => [topics] timeout_ms validate_only TAG_BUFFER
//   topics => name num_partitions replication_factor [assignments] [configs] TAG_BUFFER
//     assignments => partition_index [broker_ids] TAG_BUFFER
//     configs => name value TAG_BUFFER
// CreateTopics Response (Version: 5) => throttle_time_ms [topics] TAG_BUFFER
//   topics => name error_code error_message num_partitions replication_factor [configs] TAG_BUFFER
//     configs => name value read_only config_source is_sensitive TAG_BUFFER     (nullable array, KIP-525)
//   topics TAG_BUFFER: tag 0 = topic_config_error_code INT16 (default 0, omitted)
import { createTopicsCodec } from './codec.js';

export const v5 = createTopicsCodec(5);
