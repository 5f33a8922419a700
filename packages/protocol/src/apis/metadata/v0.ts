// Metadata Request (Version: 0) => [topics]     (an empty array means all topics)
//   topics => name
// Metadata Response (Version: 0) => [brokers] [topics]
//   brokers => node_id host port
//   topics => error_code name [partitions]
//     partitions => error_code partition_index leader_id [replica_nodes] [isr_nodes]
import { metadataCodec } from './codec.js';

export const v0 = metadataCodec(0);
