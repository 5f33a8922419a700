export { KafkaController, type ControllerConfig, type ControllerOptions } from './kafka-controller.js';
export { ControllerSessionLostError } from './zk-retry.js';
export type { ControllerChannel, ControllerChannelOptions } from './controller-channel-manager.js';
export type { LeaderElectionOutcome, AlterReassignmentsOutcome, ListReassignmentsOutcome } from './controller-events.js';
export type { ReassignmentRequest, PartitionError, OngoingReassignment } from './partition-reassignment.js';
export { originReplicas, targetReplicas, reassignTo, isBeingReassigned, type ReplicaSet } from './replica-set.js';
export type { ControllerZk, PartitionStateData, ElectionOutcome } from './controller-zk.js';
export { ControllerContext, tpKey, type ControllerBrokerInfo, type BrokerEndpointInfo, type TopicPartition } from './controller-context.js';
export { ControllerEventManager } from './controller-event-manager.js';
export { assignReplicasToBrokers, validateManualAssignment, type ReplicaAssignment } from './replica-assignment.js';
export {
  offlinePartitionLeaderElection,
  newPartitionLeaderElection,
  preferredReplicaLeaderElection,
  controlledShutdownLeaderElection,
  reassignPartitionLeaderElection,
  type LeaderAndIsr,
  type ElectionResult,
} from './leader-election.js';
export { KafkaZkControllerStore } from './kafka-zk-controller-store.js';
