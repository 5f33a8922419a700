/** Codes shared by DescribeConfigs, AlterConfigs and IncrementalAlterConfigs (Kafka's ConfigResource.Type etc.). */
export const ConfigResourceType = { UNKNOWN: 0, TOPIC: 2, BROKER: 4, BROKER_LOGGER: 8 } as const;

/** Where a described value comes from (DescribeConfigsResponse.ConfigSource), in order of precedence. */
export const ConfigSource = {
  UNKNOWN: 0,
  TOPIC_CONFIG: 1,
  DYNAMIC_BROKER_CONFIG: 2,
  DYNAMIC_DEFAULT_BROKER_CONFIG: 3,
  STATIC_BROKER_CONFIG: 4,
  DEFAULT_CONFIG: 5,
  DYNAMIC_BROKER_LOGGER_CONFIG: 6,
} as const;

/** DescribeConfigsResponse.ConfigType (v3+ config_type). */
export const ConfigDataType = {
  UNKNOWN: 0,
  BOOLEAN: 1,
  STRING: 2,
  INT: 3,
  SHORT: 4,
  LONG: 5,
  DOUBLE: 6,
  LIST: 7,
  CLASS: 8,
  PASSWORD: 9,
} as const;

/** IncrementalAlterConfigs config_operation (AlterConfigOp.OpType). */
export const AlterConfigOpType = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 } as const;
