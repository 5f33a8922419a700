// Metadata Request (Version: 1) => [topics]     (nullable: null means all topics, empty means none)
//   topics => name
// Metadata Response (Version: 1) => [brokers] controller_id [topics]
//   brokers => node_id host port rack
//   topics => error_code name is_internal [partitions]
//     partitions => error_code partition_index leader_id [replica_nodes] [isr_nodes]
import { metadataCodec } from './codec.js';

export const v1 = metadataCodec(1);
