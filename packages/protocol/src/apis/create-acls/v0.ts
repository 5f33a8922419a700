// CreateAcls Request (Version: 0) => [creations]
//   creations => resource_type resource_name principal host operation permission_type
// CreateAcls Response (Version: 0) => throttle_time_ms [results]
//   results => error_code error_message
import { createAclsCodec } from './codec.js';

export const v0 = createAclsCodec(0);
