import {
  AlterPartitionReassignments,
  AlterConfigs,
  ApiVersions,
  ControlledShutdown,
  CreatePartitions,
  CreateTopics,
  DeleteRecords,
  DeleteTopics,
  ElectLeaders,
  DescribeLogDirs,
  DescribeConfigs,
  Fetch,
  IncrementalAlterConfigs,
  InitProducerId,
  LeaderAndIsr,
  ListOffsets,
  ListPartitionReassignments,
  Metadata,
  OffsetsForLeaderEpoch,
  Produce,
  StopReplica,
  UpdateMetadata,
  SaslHandshake,
  SaslAuthenticate,
  DescribeAcls,
  CreateAcls,
  DeleteAcls,
} from '@gregor/protocol';
import type { BrokerServices } from '../broker-services.js';
import type { KafkaApis } from '../kafka-apis.js';
import { alterConfigsHandler } from './alter-configs.js';
import { apiVersionsHandler } from './api-versions.js';
import { controlledShutdownHandler } from './controlled-shutdown.js';
import { createPartitionsHandler } from './create-partitions.js';
import { createTopicsHandler } from './create-topics.js';
import { deleteRecordsHandler } from './delete-records.js';
import { deleteTopicsHandler } from './delete-topics.js';
import { electLeadersHandler } from './elect-leaders.js';
import { alterPartitionReassignmentsHandler } from './alter-partition-reassignments.js';
import { listPartitionReassignmentsHandler } from './list-partition-reassignments.js';
import { describeLogDirsHandler } from './describe-log-dirs.js';
import { describeConfigsHandler } from './describe-configs.js';
import { fetchHandler } from './fetch.js';
import { incrementalAlterConfigsHandler } from './incremental-alter-configs.js';
import { initProducerIdHandler } from './init-producer-id.js';
import { leaderAndIsrHandler } from './leader-and-isr.js';
import { listOffsetsHandler } from './list-offsets.js';
import { metadataHandler } from './metadata.js';
import { offsetsForLeaderEpochHandler } from './offsets-for-leader-epoch.js';
import { produceHandler } from './produce.js';
import { stopReplicaHandler } from './stop-replica.js';
import { updateMetadataHandler } from './update-metadata.js';
import { registerGroupHandlers } from './group-handlers.js'; // group coordinator
import { saslAuthenticateHandler, saslHandshakeHandler } from './sasl.js';
import { describeAclsHandler } from './describe-acls.js';
import { createAclsHandler } from './create-acls.js';
import { deleteAclsHandler } from './delete-acls.js';
import { installAuthorization } from '../security/authorization/index.js';

/** The one table of APIs this broker serves; ApiVersions answers from it. */
export function registerHandlers(apis: KafkaApis, s: BrokerServices): void {
  apis.register(Produce, produceHandler(s));
  apis.register(Fetch, fetchHandler(s));
  apis.register(ListOffsets, listOffsetsHandler(s));
  apis.register(Metadata, metadataHandler(s));
  apis.register(LeaderAndIsr, leaderAndIsrHandler(s));
  apis.register(StopReplica, stopReplicaHandler(s));
  apis.register(UpdateMetadata, updateMetadataHandler(s));
  apis.register(ControlledShutdown, controlledShutdownHandler(s));
  apis.register(ApiVersions, apiVersionsHandler(s));
  apis.register(CreateTopics, createTopicsHandler(s));
  apis.register(DeleteTopics, deleteTopicsHandler(s));
  apis.register(DeleteRecords, deleteRecordsHandler(s));
  apis.register(OffsetsForLeaderEpoch, offsetsForLeaderEpochHandler(s));
  apis.register(DescribeLogDirs, describeLogDirsHandler(s));
  apis.register(CreatePartitions, createPartitionsHandler(s));
  apis.register(ElectLeaders, electLeadersHandler(s));
  apis.register(AlterPartitionReassignments, alterPartitionReassignmentsHandler(s));
  apis.register(ListPartitionReassignments, listPartitionReassignmentsHandler(s));
  apis.register(DescribeConfigs, describeConfigsHandler(s));
  apis.register(AlterConfigs, alterConfigsHandler(s));
  apis.register(IncrementalAlterConfigs, incrementalAlterConfigsHandler(s));
  apis.register(InitProducerId, initProducerIdHandler(s));
  registerGroupHandlers(apis, s); // group coordinator
  apis.register(SaslHandshake, saslHandshakeHandler());
  apis.register(SaslAuthenticate, saslAuthenticateHandler());
  apis.register(DescribeAcls, describeAclsHandler(s));
  apis.register(CreateAcls, createAclsHandler(s));
  apis.register(DeleteAcls, deleteAclsHandler(s));
  // Last: permission checks wrap the handlers registered above.
  installAuthorization(apis, s);
}
