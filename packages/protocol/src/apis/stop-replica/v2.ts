// First flexible version (request header v2, response header v1; compact strings and arrays; tagged fields).
// StopReplica Request (Version: 2) => controller_id controller_epoch broker_epoch delete_partitions [topics] TAG_BUFFER
//   topics => name [partition_indexes] TAG_BUFFER
// StopReplica Response (Version: 2) => error_code [partition_errors] TAG_BUFFER
//   partition_errors => topic_name partition_index error_code TAG_BUFFER
import { stopReplicaCodec } from './codec.js';

export const v2 = stopReplicaCodec(2);
