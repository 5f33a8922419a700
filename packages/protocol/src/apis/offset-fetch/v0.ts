// OffsetFetch Request (Version: 0) => group_id [topics]
//   topics => name [partition_indexes]
// OffsetFetch Response (Version: 0) => [topics]
//   topics => name [partitions]
//     partitions => partition_index committed_offset metadata error_code
import { offsetFetchCodec } from './codec.js';

export const v0 = offsetFetchCodec(0);
