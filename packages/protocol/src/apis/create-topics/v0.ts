// CreateTopics Request (Version: 0) => [topics] timeout_ms
//   topics => name num_partitions replication_factor [assignments] [configs]
//     assignments => partition_index [broker_ids]
//     configs => name value
// CreateTopics Response (Version: 0) => [topics]
//   topics => name error_code
import { createTopicsCodec } from './codec.js';

export const v0 = createTopicsCodec(0);
