// DescribeGroups Request (Version: 0) => [groups]
// DescribeGroups Response (Version: 0) => [groups]
//   groups => error_code group_id group_state protocol_type protocol_data [members]
//     members => member_id client_id client_host member_metadata member_assignment
import { describeGroupsCodec } from './codec.js';

export const v0 = describeGroupsCodec(0);
