// OffsetDelete Request (Version: 0) => group_id [topics]
//   topics => name [partitions]
//     partitions => partition_index
// OffsetDelete Response (Version: 0) => error_code throttle_time_ms [topics]
//   topics => name [partitions]
//     partitions => partition_index error_code
import { offsetDeleteCodec } from './codec.js';

export const v0 = offsetDeleteCodec(0);
