// ListOffsets Request (Version: 0) => replica_id [topics]
//   topics => name [partitions]
//     partitions => partition_index timestamp max_num_offsets
// ListOffsets Response (Version: 0) => [topics]
//   topics => name [partitions]
//     partitions => partition_index error_code [old_style_offsets]
import { listOffsetsCodec } from './codec.js';

export const v0 = listOffsetsCodec(0);
