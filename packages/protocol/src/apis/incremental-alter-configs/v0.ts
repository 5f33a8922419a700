// IncrementalAlterConfigs Request (Version: 0) => [resources] validate_only
//   resources => resource_type resource_name [configs]
//     configs => name config_operation value     (config_operation: 0 SET, 1 DELETE, 2 APPEND, 3 SUBTRACT; value nullable)
// IncrementalAlterConfigs Response (Version: 0) => throttle_time_ms [responses]
//   responses => error_code error_message resource_type resource_name
import { incrementalAlterConfigsCodec } from './codec.js';

export const v0 = incrementalAlterConfigsCodec(0);
