// CreatePartitions Request (Version: 0) => [topics] timeout_ms validate_only
//   topics => name count [assignments]        (assignments: nullable array)
//     assignments => [broker_ids]
// CreatePartitions Response (Version: 0) => throttle_time_ms [results]
//   results => name error_code error_message
import { createPartitionsCodec } from './codec.js';

export const v0 = createPartitionsCodec(0);
