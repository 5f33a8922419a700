// ListOffsets Request (Version: 4) => replica_id isolation_level [topics]
//   topics => name [partitions]
//     partitions => partition_index current_leader_epoch timestamp
// ListOffsets Response (Version: 4) => throttle_time_ms [topics]
//   topics => name [partitions]
//     partitions => partition_index error_code timestamp offset leader_epoch
import { listOffsetsCodec } from './codec.js';

export const v4 = listOffsetsCodec(4);
