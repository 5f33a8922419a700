// ElectLeaders Request (Version: 1) => election_type [topic_partitions] timeout_ms     (0 preferred, 1 unclean: KIP-460)
//   topic_partitions => topic [partition_id]
// ElectLeaders Response (Version: 1) => throttle_time_ms error_code [replica_election_results]
//   replica_election_results => topic [partition_result]
//     partition_result => partition_id error_code error_message
import { electLeadersCodec } from './codec.js';

export const v1 = electLeadersCodec(1);
