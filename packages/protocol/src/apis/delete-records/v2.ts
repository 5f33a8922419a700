// First flexible version (request header v2, response header v1; compact strings and arrays; tagged fields).
// DeleteRecords Request (Version: 2) => [topics] timeout_ms TAG_BUFFER
//   topics => name [partitions] TAG_BUFFER
//     partitions => partition_index offset TAG_BUFFER
// DeleteRecords Response (Version: 2) => throttle_time_ms [topics] TAG_BUFFER
//   topics => name [partitions] TAG_BUFFER
//     partitions => partition_index low_watermark error_code TAG_BUFFER
import { deleteRecordsCodec } from './codec.js';

export const v2 = deleteRecordsCodec(2);
