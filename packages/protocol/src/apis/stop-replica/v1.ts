// StopReplica Request (Version: 1) => controller_id controller_epoch broker_epoch delete_partitions [topics]
//   topics => name [partition_indexes]
// StopReplica Response (Version: 1) => same as version 0
import { stopReplicaCodec } from './codec.js';

export const v1 = stopReplicaCodec(1);
