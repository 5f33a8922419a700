// DeleteAcls Request (Version: 1) => [filters]
//   filters => resource_type_filter resource_name_filter pattern_type_filter principal_filter host_filter operation permission_type
// DeleteAcls Response (Version: 1) => throttle_time_ms [filter_results]
//   filter_results => error_code error_message [matching_acls]
//     matching_acls => error_code error_message resource_type resource_name pattern_type principal host operation permission_type
import { deleteAclsCodec } from './codec.js';

export const v1 = deleteAclsCodec(1);
