import { ErrorCode } from '@gregor/common';
import type { TopicPartition } from './controller-context.js';
import type { OngoingReassignment, PartitionError, ReassignmentRequest } from './partition-reassignment.js';

/** One partition's ElectLeaders outcome; `leader` is the new leader when the election succeeded. */
export interface LeaderElectionOutcome extends TopicPartition, PartitionError {
  leader?: number;
}

/** AlterPartitionReassignments: a top-level error (NOT_CONTROLLER) or one result per partition. */
export interface AlterReassignmentsOutcome {
  errorCode: number;
  partitions: (TopicPartition & PartitionError)[];
}

export interface ListReassignmentsOutcome {
  errorCode: number;
  partitions: OngoingReassignment[];
}

/** Everything the controller reacts to. Watchers and request handlers only enqueue these. */
export type ControllerEvent =
  | { type: 'Startup' }
  | { type: 'ControllerChange' }
  | { type: 'Reelect' }
  | { type: 'Resign' }
  | { type: 'BrokerChange' }
  | { type: 'TopicChange' }
  | { type: 'PartitionModifications'; topic: string }
  | { type: 'TopicDeletion' }
  | { type: 'TopicDeletionStopReplicaResult'; topic: string; partition: number; brokerId: number; errorCode: number }
  | { type: 'IsrChangeNotification' }
  | { type: 'ControlledShutdown'; brokerId: number; brokerEpoch: bigint; respond: (result: { errorCode: number; remaining: TopicPartition[] }) => void }
  | { type: 'PreferredReplicaElection'; partitions: TopicPartition[] | null; respond?: (result: { elected: TopicPartition[]; failed: TopicPartition[] }) => void }
  | { type: 'ElectLeaders'; electionType: number; partitions: TopicPartition[]; respond: (results: LeaderElectionOutcome[]) => void }
  | { type: 'AlterPartitionReassignments'; reassignments: ReassignmentRequest[]; respond: (result: AlterReassignmentsOutcome) => void }
  | { type: 'ListPartitionReassignments'; partitions: TopicPartition[] | null; respond: (result: ListReassignmentsOutcome) => void }
  | { type: 'AutoPreferredReplicaLeaderElection' }
  | { type: 'PreferredReplicaElectionZnode' }
  | { type: 'PartitionReassignment' }
  | { type: 'UncleanLeaderElectionEnable' }
  /** Partitions whose election failed on a ZooKeeper error are tried again. */
  | { type: 'OfflinePartitionElectionRetry' }
  /** A broker reported a failed log dir under /log_dir_event_notification (KIP-112). */
  | { type: 'LogDirEventNotification' }
  /** A broker's LeaderAndIsr answer, when it names (or may clear) replicas in failed log dirs. */
  | { type: 'LeaderAndIsrResponseReceived'; brokerId: number; partitionErrors: (TopicPartition & { errorCode: number })[] };

export type ControllerEventType = ControllerEvent['type'];

/** Answers a request event this broker will not handle: not (or no longer) the controller, or it failed. */
export function refuseEvent(e: ControllerEvent, errorCode: number = ErrorCode.NOT_CONTROLLER): void {
  switch (e.type) {
    case 'ControlledShutdown':
      return e.respond({ errorCode, remaining: [] });
    case 'PreferredReplicaElection':
      return e.respond?.({ elected: [], failed: e.partitions ?? [] });
    case 'ElectLeaders':
      return e.respond(e.partitions.map((tp) => ({ ...tp, errorCode, errorMessage: null })));
    case 'AlterPartitionReassignments':
    case 'ListPartitionReassignments':
      return e.respond({ errorCode, partitions: [] });
  }
}
