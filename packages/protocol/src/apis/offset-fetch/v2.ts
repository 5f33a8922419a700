// OffsetFetch Request (Version: 2) => group_id [topics] (null topics = all)
// OffsetFetch Response (Version: 2) => [topics] error_code
import { offsetFetchCodec } from './codec.js';

export const v2 = offsetFetchCodec(2);
