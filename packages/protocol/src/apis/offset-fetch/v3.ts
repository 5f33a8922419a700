// OffsetFetch Request (Version: 3) => same as version 2
// OffsetFetch Response (Version: 3) => throttle_time_ms [topics] error_code
import { offsetFetchCodec } from './codec.js';

export const v3 = offsetFetchCodec(3);
