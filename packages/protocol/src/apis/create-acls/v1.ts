// CreateAcls Request (Version: 1) => [creations]
//   creations => resource_type resource_name resource_pattern_type principal host operation permission_type
// CreateAcls Response (Version: 1) => throttle_time_ms [results]
//   results => error_code error_message
import { createAclsCodec } from './codec.js';

export const v1 = createAclsCodec(1);
