// ControlledShutdown Request (Version: 0) => broker_id     (request header v0: api_key api_version correlation_id, no client_id)
// ControlledShutdown Response (Version: 0) => error_code [remaining_partitions]
//   remaining_partitions => topic_name partition_index
import { controlledShutdownCodec } from './codec.js';

export const v0 = controlledShutdownCodec(0);
