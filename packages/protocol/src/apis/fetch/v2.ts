// Fetch Request (Version: 2) => same as version 0
// Fetch Response (Version: 2) => same as version 1, record_set holding a MessageSet of magic 1 (timestamps)
import { fetchCodec } from './codec.js';

export const v2 = fetchCodec(2);
