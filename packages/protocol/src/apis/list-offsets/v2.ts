// ListOffsets Request (Version: 2) => replica_id isolation_level [topics]
//   topics => name [partitions]
//     partitions => partition_index timestamp
// ListOffsets Response (Version: 2) => throttle_time_ms [topics]
//   topics => name [partitions]
//     partitions => partition_index error_code timestamp offset
import { listOffsetsCodec } from './codec.js';

export const v2 = listOffsetsCodec(2);
