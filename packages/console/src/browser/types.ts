/** Shapes of the admin API's answers (packages/admin's JSON schemas; the OpenAPI document is at /docs/json). */

export interface Endpoint {
  listenerName: string;
  host: string;
  port: number;
}

export interface Cluster {
  clusterId: string | null;
  controllerId: number;
  brokers: { id: number; host: string; port: number; rack: string | null; endpoints: Endpoint[] }[];
}

export interface BrokerInfo {
  id: number;
  rack: string | null;
  endpoints: Endpoint[];
  isController: boolean;
  leaderPartitions: number;
  replicaPartitions: number;
}

export interface Brokers {
  controllerId: number;
  brokers: BrokerInfo[];
}

export interface Controller {
  controllerId: number | null;
  controllerEpoch: number | null;
  metadataControllerId: number;
  thisBrokerIsController: boolean;
}

export interface ZooKeeperServer {
  host: string;
  port: number;
  mode: string | null;
  version: string | null;
  latencyAvgMs: number | null;
  latencyMaxMs: number | null;
  connections: number | null;
  outstanding: number | null;
  zxid: string | null;
  nodeCount: number | null;
  error: string | null;
}

export interface ZooKeeperStatus {
  connectString: string;
  chroot: string | null;
  sessionHealthy: boolean;
  servers: ZooKeeperServer[];
  serving: number;
  quorum: 'standalone' | 'majority' | 'lost';
}

export interface PartitionHealth {
  topic: string;
  partition: number;
  leader: number;
  replicas: number[];
  isr: number[];
  offlineReplicas: number[];
  underReplicated: boolean;
  offline: boolean;
  preferredLeader: boolean;
}

export interface PartitionsHealth {
  total: number;
  underReplicated: number;
  offline: number;
  notPreferredLeader: number;
  partitions: PartitionHealth[];
}

export interface TopicSummary {
  name: string;
  partitions: number;
  replicationFactor: number;
  internal: boolean;
  /** With ?stats=true. */
  messages?: number | null;
  sizeBytes?: number | null;
  highWatermarkSum?: number | null;
}

export interface ReplicaState {
  brokerId: number;
  inSync: boolean;
  online: boolean;
  logEndOffset: number | null;
  highWatermark: number | null;
  lag: number | null;
  lastCaughtUpMsAgo: number | null;
}

export interface PartitionDescription {
  partition: number;
  leader: number;
  leaderEpoch: number;
  replicas: number[];
  isr: number[];
  offlineReplicas: number[];
  logStartOffset: number | null;
  highWatermark: number | null;
  logEndOffset: number | null;
  offsetsError?: string;
  replicaStates: ReplicaState[];
  replicaStatesSource: 'leader' | 'partial';
}

export interface TopicDescription {
  name: string;
  internal: boolean;
  configs: Record<string, string>;
  partitions: PartitionDescription[];
}

export interface ConfigEntry {
  name: string;
  value: string | null;
  source: string;
  readOnly: boolean;
  sensitive: boolean;
  synonyms: { name: string; value: string | null; source: string }[];
  documentation: string | null;
}

export interface TopicConfigs {
  name: string;
  configs: Record<string, string>;
  entries?: ConfigEntry[];
}

export interface FetchedRecord {
  offset: number;
  timestamp: number;
  key: string | null;
  value: string | null;
  headers: Record<string, string | null>;
}

export interface FetchedRecords {
  topic: string;
  partition: number;
  highWatermark: number;
  logStartOffset: number;
  /** Where the read started (offset, timestamp, or the log start). */
  startOffset: number;
  nextOffset: number;
  /** Records looked at (more than returned when searching by key). */
  scanned: number;
  encoding: 'utf8' | 'base64';
  records: FetchedRecord[];
}

export interface GroupEntry {
  group: string;
  kind: 'zookeeper' | 'coordinator';
  state?: string;
  protocolType?: string;
  coordinator?: number;
}

export interface GroupList {
  groups: string[];
  entries: GroupEntry[];
  unavailableCoordinators?: { broker: number; error: string }[];
}

export interface GroupMember {
  consumerId?: string;
  pattern?: string;
  subscription?: Record<string, number>;
  timestamp?: number;
  memberId?: string;
  groupInstanceId?: string | null;
  clientId?: string;
  clientHost?: string;
  assignment?: { topic: string; partitions: number[] }[] | null;
}

export interface GroupPartition {
  topic: string;
  partition: number;
  owner: string | null;
  committedOffset: number | null;
  logEndOffset: number | null;
  lag: number | null;
}

export interface GroupDescription {
  group: string;
  kind: 'zookeeper' | 'coordinator';
  state?: string;
  protocolType?: string;
  protocol?: string;
  coordinator?: number;
  members: GroupMember[];
  partitions: GroupPartition[];
}

export type ResetTarget = 'earliest' | 'latest' | { timestamp: number } | { offset: number } | { shiftBy: number };

export interface ResetResult {
  group: string;
  kind: 'zookeeper' | 'coordinator';
  dryRun: boolean;
  offsets: { topic: string; partition: number; previousOffset: number | null; offset: number }[];
}

export interface PartitionStatus {
  topic: string;
  partition: number;
  leader: number;
  replicas: number[];
  isr: number[];
  targetReplicas?: number[];
  done?: boolean;
}

export interface Progress {
  inProgress: boolean;
  partitions: PartitionStatus[];
}

export interface BrokerTraffic {
  brokerId: number;
  /** When the broker read its counters (its clock). */
  timestampMs: number | null;
  bytesIn: number | null;
  bytesOut: number | null;
  messagesIn: number | null;
  replicationBytesOut: number | null;
  error: string | null;
}

export interface ClusterTraffic {
  brokers: BrokerTraffic[];
}
