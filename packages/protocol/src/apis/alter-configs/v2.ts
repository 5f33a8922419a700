// First flexible version (request header v2, response header v1; compact strings and arrays; tagged fields).
// AlterConfigs Request (Version: 2) => [resources] validate_only TAG_BUFFER
//   resources => resource_type resource_name [configs] TAG_BUFFER
//     configs => name value TAG_BUFFER
// AlterConfigs Response (Version: 2) => throttle_time_ms [responses] TAG_BUFFER
//   responses => error_code error_message resource_type resource_name TAG_BUFFER
import { alterConfigsCodec } from './codec.js';

export const v2 = alterConfigsCodec(2);
