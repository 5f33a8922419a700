import type { ApiDefinition } from './api.js';
import { ApiVersions } from './apis/api-versions/index.js';
import { CreateTopics } from './apis/create-topics/index.js';
import { Fetch } from './apis/fetch/index.js';
import { ListOffsets } from './apis/list-offsets/index.js';
import { Metadata } from './apis/metadata/index.js';
import { Produce } from './apis/produce/index.js';
import { DeleteTopics } from './apis/delete-topics/index.js';
import { CreatePartitions } from './apis/create-partitions/index.js';
import { LeaderAndIsr } from './apis/leader-and-isr/index.js';
import { StopReplica } from './apis/stop-replica/index.js';
import { UpdateMetadata } from './apis/update-metadata/index.js';
import { ControlledShutdown } from './apis/controlled-shutdown/index.js';
import { OffsetsForLeaderEpoch } from './apis/offsets-for-leader-epoch/index.js';
import { OffsetCommit } from './apis/offset-commit/index.js';
import { OffsetFetch } from './apis/offset-fetch/index.js';
import { FindCoordinator } from './apis/find-coordinator/index.js';
import { JoinGroup } from './apis/join-group/index.js';
import { Heartbeat } from './apis/heartbeat/index.js';
import { LeaveGroup } from './apis/leave-group/index.js';
import { SyncGroup } from './apis/sync-group/index.js';
import { DescribeGroups } from './apis/describe-groups/index.js';
import { ListGroups } from './apis/list-groups/index.js';
import { DeleteGroups } from './apis/delete-groups/index.js';
import { ElectLeaders } from './apis/elect-leaders/index.js';
import { AlterPartitionReassignments } from './apis/alter-partition-reassignments/index.js';
import { ListPartitionReassignments } from './apis/list-partition-reassignments/index.js';
import { DeleteRecords } from './apis/delete-records/index.js';
import { DescribeLogDirs } from './apis/describe-log-dirs/index.js';
import { OffsetDelete } from './apis/offset-delete/index.js';
import { DescribeConfigs } from './apis/describe-configs/index.js';
import { AlterConfigs } from './apis/alter-configs/index.js';
import { IncrementalAlterConfigs } from './apis/incremental-alter-configs/index.js';
import { SaslHandshake } from './apis/sasl-handshake/index.js';
import { SaslAuthenticate } from './apis/sasl-authenticate/index.js';
import { DescribeAcls } from './apis/describe-acls/index.js';
import { CreateAcls } from './apis/create-acls/index.js';
import { DeleteAcls } from './apis/delete-acls/index.js';
import { InitProducerId } from './apis/init-producer-id/index.js';

export type AnyApiDefinition = ApiDefinition<any, any>;

/** Every API gregor speaks, by Kafka's name: the one list the broker registers handlers against and answers ApiVersions from. */
const API_DEFINITIONS = {
  Produce,
  Fetch,
  ListOffsets,
  Metadata,
  LeaderAndIsr,
  StopReplica,
  UpdateMetadata,
  ControlledShutdown,
  OffsetCommit,
  OffsetFetch,
  FindCoordinator,
  JoinGroup,
  Heartbeat,
  LeaveGroup,
  SyncGroup,
  DescribeGroups,
  ListGroups,
  SaslHandshake,
  ApiVersions,
  CreateTopics,
  DeleteTopics,
  DeleteRecords,
  InitProducerId,
  OffsetsForLeaderEpoch,
  DescribeAcls,
  CreateAcls,
  DeleteAcls,
  DescribeConfigs,
  AlterConfigs,
  DescribeLogDirs,
  SaslAuthenticate,
  CreatePartitions,
  DeleteGroups,
  ElectLeaders,
  IncrementalAlterConfigs,
  AlterPartitionReassignments,
  ListPartitionReassignments,
  OffsetDelete,
} satisfies Record<ApiName, AnyApiDefinition>;

const API_TABLE: ReadonlyMap<number, AnyApiDefinition> = new Map<number, AnyApiDefinition>(Object.values(API_DEFINITIONS).map((api) => [api.apiKey, api]));

/** Api keys by Kafka's API name. */
export const ApiKey = {
  Produce: 0,
  Fetch: 1,
  ListOffsets: 2,
  Metadata: 3,
  LeaderAndIsr: 4,
  StopReplica: 5,
  UpdateMetadata: 6,
  ControlledShutdown: 7,
  OffsetCommit: 8,
  OffsetFetch: 9,
  FindCoordinator: 10,
  JoinGroup: 11,
  Heartbeat: 12,
  LeaveGroup: 13,
  SyncGroup: 14,
  DescribeGroups: 15,
  ListGroups: 16,
  SaslHandshake: 17,
  ApiVersions: 18,
  CreateTopics: 19,
  DeleteTopics: 20,
  DeleteRecords: 21,
  InitProducerId: 22,
  OffsetsForLeaderEpoch: 23,
  DescribeAcls: 29,
  CreateAcls: 30,
  DeleteAcls: 31,
  DescribeConfigs: 32,
  AlterConfigs: 33,
  DescribeLogDirs: 35,
  SaslAuthenticate: 36,
  CreatePartitions: 37,
  DeleteGroups: 42,
  ElectLeaders: 43,
  IncrementalAlterConfigs: 44,
  AlterPartitionReassignments: 45,
  ListPartitionReassignments: 46,
  OffsetDelete: 47,
} as const;

export type ApiName = keyof typeof ApiKey;
export type ApiKeyValue = (typeof ApiKey)[ApiName];
type Definitions = typeof API_DEFINITIONS;
/** The definition of the API with key K, with its request and response types. */
export type ApiDefinitionOf<K extends ApiKeyValue> = { [N in ApiName]: (typeof ApiKey)[N] extends K ? Definitions[N] : never }[ApiName];
export type ApiRequestOf<K extends ApiKeyValue> = ApiDefinitionOf<K> extends ApiDefinition<infer Req, any> ? Req : never;
export type ApiResponseOf<K extends ApiKeyValue> = ApiDefinitionOf<K> extends ApiDefinition<any, infer Res> ? Res : never;

export function getApi<K extends ApiKeyValue>(apiKey: K): ApiDefinitionOf<K>;
export function getApi(apiKey: number): AnyApiDefinition | undefined;
export function getApi(apiKey: number): AnyApiDefinition | undefined {
  return API_TABLE.get(apiKey);
}

export function allApis(): AnyApiDefinition[] {
  return [...API_TABLE.values()].sort((a, b) => a.apiKey - b.apiKey);
}

export interface SupportedApiVersion {
  apiKey: number;
  minVersion: number;
  maxVersion: number;
}

/** The ranges to advertise in an ApiVersions response, sorted by api key. */
export function supportedApiVersions(): SupportedApiVersion[] {
  return allApis().map(({ apiKey, minVersion, maxVersion }) => ({ apiKey, minVersion, maxVersion }));
}
