// OffsetsForLeaderEpoch Request (Version: 0) => [topics]
//   topics => topic [partitions]
//     partitions => partition leader_epoch
// OffsetsForLeaderEpoch Response (Version: 0) => [topics]
//   topics => topic [partitions]
//     partitions => error_code partition end_offset
import { offsetsForLeaderEpochCodec } from './codec.js';

export const v0 = offsetsForLeaderEpochCodec(0);
