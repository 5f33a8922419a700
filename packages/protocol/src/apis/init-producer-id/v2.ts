// First flexible version (request header v2, response header v1).
// InitProducerId Request (Version: 2) => transactional_id transaction_timeout_ms TAG_BUFFER
//   transactional_id => COMPACT_NULLABLE_STRING
// InitProducerId Response (Version: 2) => throttle_time_ms error_code producer_id producer_epoch TAG_BUFFER
import { initProducerIdCodec } from './codec.js';

export const v2 = initProducerIdCodec(2);
