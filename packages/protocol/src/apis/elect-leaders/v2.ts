// ElectLeaders Request (Version: 2) => election_type [topic_partitions] timeout_ms TAG_BUFFER     (flexible)
//   topic_partitions => topic [partition_id] TAG_BUFFER
// ElectLeaders Response (Version: 2) => throttle_time_ms error_code [replica_election_results] TAG_BUFFER
//   replica_election_results => topic [partition_result] TAG_BUFFER
//     partition_result => partition_id error_code error_message TAG_BUFFER
import { electLeadersCodec } from './codec.js';

export const v2 = electLeadersCodec(2);
