// Metadata Request (Version: 2) => [topics]
//   topics => name
// Metadata Response (Version: 2) => [brokers] cluster_id controller_id [topics]
//   brokers => node_id host port rack
//   topics => error_code name is_internal [partitions]
//     partitions => error_code partition_index leader_id [replica_nodes] [isr_nodes]
import { metadataCodec } from './codec.js';

export const v2 = metadataCodec(2);
