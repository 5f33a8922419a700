// CreateAcls Request (Version: 2) => [creations] TAG_BUFFER     (flexible)
//   creations => resource_type resource_name resource_pattern_type principal host operation permission_type TAG_BUFFER
// CreateAcls Response (Version: 2) => throttle_time_ms [results] TAG_BUFFER
//   results => error_code error_message TAG_BUFFER
import { createAclsCodec } from './codec.js';

export const v2 = createAclsCodec(2);
