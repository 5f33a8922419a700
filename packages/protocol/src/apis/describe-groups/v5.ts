// First flexible version (request header v2, response header v1; compact strings, bytes and arrays; tagged fields).
// DescribeGroups Request (Version: 5) => [groups] include_authorized_operations TAG_BUFFER
// DescribeGroups Response (Version: 5) => throttle_time_ms [groups] TAG_BUFFER
//   groups => error_code group_id group_state protocol_type protocol_data [members] authorized_operations TAG_BUFFER
//     members => member_id group_instance_id client_id client_host member_metadata member_assignment TAG_BUFFER
import { describeGroupsCodec } from './codec.js';

export const v5 = describeGroupsCodec(5);
