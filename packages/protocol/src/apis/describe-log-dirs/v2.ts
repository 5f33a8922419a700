// First flexible version (request header v2, response header v1; compact strings and arrays; tagged fields).
// DescribeLogDirs Request (Version: 2) => [topics] TAG_BUFFER   (compact nullable: 0 = all)
//   topics => topic [partition_index] TAG_BUFFER
// DescribeLogDirs Response (Version: 2) => throttle_time_ms [results] TAG_BUFFER
//   results => error_code log_dir [topics] TAG_BUFFER
//     topics => name [partitions] TAG_BUFFER
//       partitions => partition_index partition_size offset_lag is_future_key TAG_BUFFER
import { describeLogDirsCodec } from './codec.js';

export const v2 = describeLogDirsCodec(2);
