// OffsetFetch Request and Response (Version: 4) => same as version 3
import { offsetFetchCodec } from './codec.js';

export const v4 = offsetFetchCodec(4);
