import { ApiKey } from '@gregor/protocol';
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

/** A handler for every API of protocol's table (the one table; ApiVersions answers from it). */
export function registerHandlers(apis: KafkaApis, s: BrokerServices): void {
  apis.register(ApiKey.Produce, produceHandler(s));
  apis.register(ApiKey.Fetch, fetchHandler(s));
  apis.register(ApiKey.ListOffsets, listOffsetsHandler(s));
  apis.register(ApiKey.Metadata, metadataHandler(s));
  apis.register(ApiKey.LeaderAndIsr, leaderAndIsrHandler(s));
  apis.register(ApiKey.StopReplica, stopReplicaHandler(s));
  apis.register(ApiKey.UpdateMetadata, updateMetadataHandler(s));
  apis.register(ApiKey.ControlledShutdown, controlledShutdownHandler(s));
  apis.register(ApiKey.ApiVersions, apiVersionsHandler(s));
  apis.register(ApiKey.CreateTopics, createTopicsHandler(s));
  apis.register(ApiKey.DeleteTopics, deleteTopicsHandler(s));
  apis.register(ApiKey.DeleteRecords, deleteRecordsHandler(s));
  apis.register(ApiKey.OffsetsForLeaderEpoch, offsetsForLeaderEpochHandler(s));
  apis.register(ApiKey.DescribeLogDirs, describeLogDirsHandler(s));
  apis.register(ApiKey.CreatePartitions, createPartitionsHandler(s));
  apis.register(ApiKey.ElectLeaders, electLeadersHandler(s));
  apis.register(ApiKey.AlterPartitionReassignments, alterPartitionReassignmentsHandler(s));
  apis.register(ApiKey.ListPartitionReassignments, listPartitionReassignmentsHandler(s));
  apis.register(ApiKey.DescribeConfigs, describeConfigsHandler(s));
  apis.register(ApiKey.AlterConfigs, alterConfigsHandler(s));
  apis.register(ApiKey.IncrementalAlterConfigs, incrementalAlterConfigsHandler(s));
  apis.register(ApiKey.InitProducerId, initProducerIdHandler(s));
  registerGroupHandlers(apis, s); // group coordinator
  apis.register(ApiKey.SaslHandshake, saslHandshakeHandler());
  apis.register(ApiKey.SaslAuthenticate, saslAuthenticateHandler());
  apis.register(ApiKey.DescribeAcls, describeAclsHandler(s));
  apis.register(ApiKey.CreateAcls, createAclsHandler(s));
  apis.register(ApiKey.DeleteAcls, deleteAclsHandler(s));
  apis.checkServesTable();
  // Last: permission checks wrap the handlers registered above.
  installAuthorization(apis, s);
}
