// DescribeConfigs Request (Version: 3) => [resources] include_synonyms include_documentation
//   resources => resource_type resource_name [configuration_keys]
// DescribeConfigs Response (Version: 3) => throttle_time_ms [results]
//   results => error_code error_message resource_type resource_name [configs]
//     configs => name value read_only config_source is_sensitive [synonyms] config_type documentation
//       synonyms => name value source
import { describeConfigsCodec } from './codec.js';

export const v3 = describeConfigsCodec(3);
