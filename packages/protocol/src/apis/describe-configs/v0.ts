// DescribeConfigs Request (Version: 0) => [resources]
//   resources => resource_type resource_name [configuration_keys]     (configuration_keys nullable: null = all)
// DescribeConfigs Response (Version: 0) => throttle_time_ms [results]
//   results => error_code error_message resource_type resource_name [configs]
//     configs => name value read_only is_default is_sensitive
import { describeConfigsCodec } from './codec.js';

export const v0 = describeConfigsCodec(0);
