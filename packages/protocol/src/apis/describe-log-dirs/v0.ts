// DescribeLogDirs Request (Version: 0) => [topics]   (topics nullable: null = all)
//   topics => topic [partition_index]
// DescribeLogDirs Response (Version: 0) => throttle_time_ms [results]
//   results => error_code log_dir [topics]
//     topics => name [partitions]
//       partitions => partition_index partition_size offset_lag is_future_key
import { describeLogDirsCodec } from './codec.js';

export const v0 = describeLogDirsCodec(0);
