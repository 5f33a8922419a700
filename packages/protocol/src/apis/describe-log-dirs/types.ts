/** DescribeLogDirs (key 35): field names from Kafka's DescribeLogDirsRequest/Response.json. */
export interface DescribableLogDirTopic {
  topic: string;
  /** Partition indexes ("PartitionIndex" in Kafka 2.4-2.8's JSON, "Partitions" later; same wire). */
  partitions: number[];
}

export interface DescribeLogDirsRequest {
  /** null = every partition hosted. */
  topics: DescribableLogDirTopic[] | null;
}

export interface DescribeLogDirsPartition {
  partitionIndex: number;
  /** Bytes of the partition's segments in this log dir. */
  partitionSize: number;
  /** max(HW - LEO, 0) for a current log; -1 when unknown. */
  offsetLag: number;
  /** A future log being moved here by AlterReplicaLogDirs (never in gregor). */
  isFutureKey: boolean;
}

export interface DescribeLogDirsTopic {
  name: string;
  partitions: DescribeLogDirsPartition[];
}

export interface DescribeLogDirsResult {
  errorCode: number;
  /** Absolute path of the log dir. */
  logDir: string;
  topics: DescribeLogDirsTopic[];
}

export interface DescribeLogDirsResponse {
  throttleTimeMs: number;
  results: DescribeLogDirsResult[];
}
