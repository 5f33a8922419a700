// DescribeConfigs Request (Version: 1) => [resources] include_synonyms
//   resources => resource_type resource_name [configuration_keys]
// DescribeConfigs Response (Version: 1) => throttle_time_ms [results]
//   results => error_code error_message resource_type resource_name [configs]
//     configs => name value read_only config_source is_sensitive [synonyms]
//       synonyms => name value source
import { describeConfigsCodec } from './codec.js';

export const v1 = describeConfigsCodec(1);
