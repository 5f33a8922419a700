// ElectLeaders Request (Version: 0) => [topic_partitions] timeout_ms     (null topic_partitions = all; preferred election)
//   topic_partitions => topic [partition_id]
// ElectLeaders Response (Version: 0) => throttle_time_ms [replica_election_results]
//   replica_election_results => topic [partition_result]
//     partition_result => partition_id error_code error_message
import { electLeadersCodec } from './codec.js';

export const v0 = electLeadersCodec(0);
