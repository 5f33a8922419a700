// StopReplica Request (Version: 0) => controller_id controller_epoch delete_partitions [ungrouped_partitions]
//   ungrouped_partitions => topic_name partition_index
// StopReplica Response (Version: 0) => error_code [partition_errors]
//   partition_errors => topic_name partition_index error_code
import { stopReplicaCodec } from './codec.js';

export const v0 = stopReplicaCodec(0);
