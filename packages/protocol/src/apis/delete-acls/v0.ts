// DeleteAcls Request (Version: 0) => [filters]
//   filters => resource_type_filter resource_name_filter principal_filter host_filter operation permission_type
// DeleteAcls Response (Version: 0) => throttle_time_ms [filter_results]
//   filter_results => error_code error_message [matching_acls]
//     matching_acls => error_code error_message resource_type resource_name principal host operation permission_type
import { deleteAclsCodec } from './codec.js';

export const v0 = deleteAclsCodec(0);
