// DescribeAcls Request (Version: 2) => same fields as version 1, TAG_BUFFER     (flexible)
// DescribeAcls Response (Version: 2) => throttle_time_ms error_code error_message [resources] TAG_BUFFER
//   resources => resource_type resource_name pattern_type [acls] TAG_BUFFER
//     acls => principal host operation permission_type TAG_BUFFER
import { describeAclsCodec } from './codec.js';

export const v2 = describeAclsCodec(2);
