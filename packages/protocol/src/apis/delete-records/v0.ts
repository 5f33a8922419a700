// DeleteRecords Request (Version: 0) => [topics] timeout_ms
//   topics => name [partitions]
//     partitions => partition_index offset
// DeleteRecords Response (Version: 0) => throttle_time_ms [topics]
//   topics => name [partitions]
//     partitions => partition_index low_watermark error_code
import { deleteRecordsCodec } from './codec.js';

export const v0 = deleteRecordsCodec(0);
