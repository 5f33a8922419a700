// First flexible version (request header v2, response header v1; compact strings and arrays; tagged fields).
// ControlledShutdown Request (Version: 3) => broker_id broker_epoch TAG_BUFFER
// ControlledShutdown Response (Version: 3) => error_code [remaining_partitions] TAG_BUFFER
//   remaining_partitions => topic_name partition_index TAG_BUFFER
import { controlledShutdownCodec } from './codec.js';

export const v3 = controlledShutdownCodec(3);
