// CreateTopics Request (Version: 1) => [topics] timeout_ms validate_only
//   topics => name num_partitions replication_factor [assignments] [configs]
//     assignments => partition_index [broker_ids]
//     configs => name value
// CreateTopics Response (Version: 1) => [topics]
//   topics => name error_code error_message
import { createTopicsCodec } from './codec.js';

export const v1 = createTopicsCodec(1);
