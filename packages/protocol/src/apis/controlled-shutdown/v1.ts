// ControlledShutdown Request (Version: 1) => broker_id     (the standard request header v1 from here on)
// ControlledShutdown Response (Version: 1) => error_code [remaining_partitions]
//   remaining_partitions => topic_name partition_index
import { controlledShutdownCodec } from './codec.js';

export const v1 = controlledShutdownCodec(1);
