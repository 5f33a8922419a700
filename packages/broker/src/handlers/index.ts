import {
  ApiVersions,
  ControlledShutdown,
  CreatePartitions,
  CreateTopics,
  DeleteTopics,
  Fetch,
  InitProducerId,
  LeaderAndIsr,
  ListOffsets,
  Metadata,
  OffsetsForLeaderEpoch,
  Produce,
  StopReplica,
  UpdateMetadata,
} from '@gregor/protocol';
import type { BrokerServices } from '../broker-services.js';
import type { KafkaApis } from '../kafka-apis.js';
import { apiVersionsHandler } from './api-versions.js';
import { controlledShutdownHandler } from './controlled-shutdown.js';
import { createPartitionsHandler } from './create-partitions.js';
import { createTopicsHandler } from './create-topics.js';
import { deleteTopicsHandler } from './delete-topics.js';
import { fetchHandler } from './fetch.js';
import { initProducerIdHandler } from './init-producer-id.js';
import { leaderAndIsrHandler } from './leader-and-isr.js';
import { listOffsetsHandler } from './list-offsets.js';
import { metadataHandler } from './metadata.js';
import { offsetsForLeaderEpochHandler } from './offsets-for-leader-epoch.js';
import { produceHandler } from './produce.js';
import { stopReplicaHandler } from './stop-replica.js';
import { updateMetadataHandler } from './update-metadata.js';
import { registerGroupHandlers } from './group-handlers.js'; // group coordinator

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
  apis.register(OffsetsForLeaderEpoch, offsetsForLeaderEpochHandler(s));
  apis.register(CreatePartitions, createPartitionsHandler(s));
  apis.register(InitProducerId, initProducerIdHandler(s));
  registerGroupHandlers(apis, s); // group coordinator
}
