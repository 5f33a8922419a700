// OffsetFetch Request (Version: 5) => same as version 3
// OffsetFetch Response (Version: 5) => throttle_time_ms [topics] error_code
//     partitions => partition_index committed_offset committed_leader_epoch metadata error_code
import { offsetFetchCodec } from './codec.js';

export const v5 = offsetFetchCodec(5);
