// OffsetFetch Request and Response (Version: 1) => same as version 0 (offsets from Kafka, not ZooKeeper)
import { offsetFetchCodec } from './codec.js';

export const v1 = offsetFetchCodec(1);
