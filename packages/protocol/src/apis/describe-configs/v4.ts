// First flexible version (request header v2, response header v1; compact strings and arrays; tagged fields).
// DescribeConfigs Request (Version: 4) => [resources] include_synonyms include_documentation TAG_BUFFER
//   resources => resource_type resource_name [configuration_keys] TAG_BUFFER
// DescribeConfigs Response (Version: 4) => throttle_time_ms [results] TAG_BUFFER
//   results => error_code error_message resource_type resource_name [configs] TAG_BUFFER
//     configs => name value read_only config_source is_sensitive [synonyms] config_type documentation TAG_BUFFER
//       synonyms => name value source TAG_BUFFER
import { describeConfigsCodec } from './codec.js';

export const v4 = describeConfigsCodec(4);
