// CreateTopics Request and Response (Version: 4) => same as version 2
// (num_partitions and replication_factor may be -1 without assignments: use the broker defaults, KIP-464)
import { sameAs } from '../../api.js';
import { v2 } from './v2.js';

export const v4 = sameAs(v2, 4);
