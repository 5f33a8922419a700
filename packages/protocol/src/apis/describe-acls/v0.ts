// DescribeAcls Request (Version: 0) => resource_type_filter resource_name_filter principal_filter host_filter operation permission_type
// DescribeAcls Response (Version: 0) => throttle_time_ms error_code error_message [resources]
//   resources => resource_type resource_name [acls]
//     acls => principal host operation permission_type
import { describeAclsCodec } from './codec.js';

export const v0 = describeAclsCodec(0);
