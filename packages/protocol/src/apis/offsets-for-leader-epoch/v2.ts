// OffsetsForLeaderEpoch Request (Version: 2) => [topics]
//   topics => topic [partitions]
//     partitions => partition current_leader_epoch leader_epoch
// OffsetsForLeaderEpoch Response (Version: 2) => throttle_time_ms [topics]
//   topics => topic [partitions]
//     partitions => error_code partition leader_epoch end_offset
import { offsetsForLeaderEpochCodec } from './codec.js';

export const v2 = offsetsForLeaderEpochCodec(2);
