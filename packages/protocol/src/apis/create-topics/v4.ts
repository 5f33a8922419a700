// CreateTopics Request and Response (Version: 4) => same as version 2
// (num_partitions and replication_factor may be -1 without assignments: use the broker defaults, KIP-464)
import { createTopicsCodec } from './codec.js';

export const v4 = createTopicsCodec(4);
