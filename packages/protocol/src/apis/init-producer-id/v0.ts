// InitProducerId Request (Version: 0) => transactional_id transaction_timeout_ms
//   transactional_id => NULLABLE_STRING
//   transaction_timeout_ms => INT32
// InitProducerId Response (Version: 0) => throttle_time_ms error_code producer_id producer_epoch
import { initProducerIdCodec } from './codec.js';

export const v0 = initProducerIdCodec(0);
