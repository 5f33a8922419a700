// DescribeAcls Request (Version: 1) => resource_type_filter resource_name_filter pattern_type_filter principal_filter host_filter operation permission_type
// DescribeAcls Response (Version: 1) => throttle_time_ms error_code error_message [resources]
//   resources => resource_type resource_name pattern_type [acls]
//     acls => principal host operation permission_type
import { describeAclsCodec } from './codec.js';

export const v1 = describeAclsCodec(1);
