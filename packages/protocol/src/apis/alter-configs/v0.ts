// AlterConfigs Request (Version: 0) => [resources] validate_only
//   resources => resource_type resource_name [configs]
//     configs => name value     (value nullable)
// AlterConfigs Response (Version: 0) => throttle_time_ms [responses]
//   responses => error_code error_message resource_type resource_name
import { alterConfigsCodec } from './codec.js';

export const v0 = alterConfigsCodec(0);
