/** DescribeConfigs (key 32): field names from Kafka's DescribeConfigsRequest/Response.json (2.8). */
export interface DescribeConfigsResource {
  /** ConfigResourceType: 2 topic, 4 broker, 8 broker logger. */
  resourceType: number;
  resourceName: string;
  /** null (or, as Kafka reads it, empty) = every config. */
  configurationKeys: string[] | null;
}

export interface DescribeConfigsRequest {
  resources: DescribeConfigsResource[];
  /** v1+ (default false). */
  includeSynonyms?: boolean;
  /** v3+ (default false). */
  includeDocumentation?: boolean;
}

export interface DescribeConfigsSynonym {
  name: string;
  value: string | null;
  /** ConfigSource. */
  source: number;
}

export interface DescribeConfigsResourceResult {
  name: string;
  /** null for sensitive configs and unset ones. */
  value: string | null;
  readOnly: boolean;
  /** v0 only; when absent it is written as configSource === DEFAULT_CONFIG. */
  isDefault?: boolean;
  /**
   * ConfigSource, v1+. A v0 response has none: decoding derives it as Kafka's clients do
   * (is_default → DEFAULT_CONFIG, else TOPIC_CONFIG for a topic, STATIC_BROKER_CONFIG for a broker).
   */
  configSource: number;
  isSensitive: boolean;
  /** v1+ (default []), most preferred first. */
  synonyms?: DescribeConfigsSynonym[];
  /** ConfigDataType, v3+ (default 0). */
  configType?: number;
  /** v3+ (default null). */
  documentation?: string | null;
}

export interface DescribeConfigsResult {
  errorCode: number;
  errorMessage: string | null;
  resourceType: number;
  resourceName: string;
  configs: DescribeConfigsResourceResult[];
}

export interface DescribeConfigsResponse {
  throttleTimeMs: number;
  results: DescribeConfigsResult[];
}
