// OffsetsForLeaderEpoch Request (Version: 1) => same as version 0
// OffsetsForLeaderEpoch Response (Version: 1) => [topics]
//   topics => topic [partitions]
//     partitions => error_code partition leader_epoch end_offset
import { offsetsForLeaderEpochCodec } from './codec.js';

export const v1 = offsetsForLeaderEpochCodec(1);
