// ListOffsets Request (Version: 1) => replica_id [topics]
//   topics => name [partitions]
//     partitions => partition_index timestamp
// ListOffsets Response (Version: 1) => [topics]
//   topics => name [partitions]
//     partitions => partition_index error_code timestamp offset
import { listOffsetsCodec } from './codec.js';

export const v1 = listOffsetsCodec(1);
