// Produce Request (Version: 0) => acks timeout_ms [topic_data]
//   topic_data => name [partition_data]
//     partition_data => index records          (records: nullable bytes holding a MessageSet, magic 0)
// Produce Response (Version: 0) => [responses]
//   responses => name [partition_responses]
//     partition_responses => index error_code base_offset
import { produceCodec } from './codec.js';

export const v0 = produceCodec(0);
