// First flexible version (request header v2, response header v1; compact strings and arrays; tagged fields).
// OffsetFetch Request (Version: 6) => group_id [topics] TAG_BUFFER     (topics nullable: null = all committed)
//   topics => name [partition_indexes] TAG_BUFFER
// OffsetFetch Response (Version: 6) => throttle_time_ms [topics] error_code TAG_BUFFER
//   topics => name [partitions] TAG_BUFFER
//     partitions => partition_index committed_offset committed_leader_epoch metadata error_code TAG_BUFFER
import { offsetFetchCodec } from './codec.js';

export const v6 = offsetFetchCodec(6);
