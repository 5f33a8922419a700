// Produce Request (Version: 8) => same as version 3 (KIP-467 changes the response only)
// Produce Response (Version: 8) => [responses] throttle_time_ms
//   responses => name [partition_responses]
//     partition_responses => index error_code base_offset log_append_time_ms log_start_offset [record_errors] error_message
//       record_errors => batch_index batch_index_error_message
import { produceCodec } from './codec.js';

export const v8 = produceCodec(8);
