// First flexible version (request header v2, response header v1; compact strings and arrays; tagged fields).
// IncrementalAlterConfigs Request (Version: 1) => [resources] validate_only TAG_BUFFER
//   resources => resource_type resource_name [configs] TAG_BUFFER
//     configs => name config_operation value TAG_BUFFER
// IncrementalAlterConfigs Response (Version: 1) => throttle_time_ms [responses] TAG_BUFFER
//   responses => error_code error_message resource_type resource_name TAG_BUFFER
import { incrementalAlterConfigsCodec } from './codec.js';

export const v1 = incrementalAlterConfigsCodec(1);
