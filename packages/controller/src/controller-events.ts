import type { TopicPartition } from './controller-context.js';

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
  | { type: 'ControlledShutdown'; brokerId: number; respond: (result: { errorCode: number; remaining: TopicPartition[] }) => void }
  | { type: 'PreferredReplicaElection'; partitions: TopicPartition[] | null; respond?: (result: { elected: TopicPartition[]; failed: TopicPartition[] }) => void }
  | { type: 'AutoPreferredReplicaLeaderElection' }
  | { type: 'PreferredReplicaElectionZnode' }
  | { type: 'PartitionReassignment' }
  | { type: 'UncleanLeaderElectionEnable' };

export type ControllerEventType = ControllerEvent['type'];
