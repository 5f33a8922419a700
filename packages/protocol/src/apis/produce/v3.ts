// Produce Request (Version: 3) => transactional_id acks timeout_ms [topic_data]
//   topic_data => name [partition_data]
//     partition_data => index records          (records: nullable bytes holding RecordBatch v2)
// Produce Response (Version: 3) => [responses] throttle_time_ms
//   responses => name [partition_responses]
//     partition_responses => index error_code base_offset log_append_time_ms
import { produceCodec } from './codec.js';

export const v3 = produceCodec(3);
