// OffsetsForLeaderEpoch Request (Version: 3) => replica_id [topics]
//   topics => topic [partitions]
//     partitions => partition current_leader_epoch leader_epoch
// OffsetsForLeaderEpoch Response (Version: 3) => same as version 2
import { offsetsForLeaderEpochCodec } from './codec.js';

export const v3 = offsetsForLeaderEpochCodec(3);
