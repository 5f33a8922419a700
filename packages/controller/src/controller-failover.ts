import type { BrokerChangeHandler } from './broker-change-handler.js';
import type { ControllerDeps } from './controller-config.js';
import { tpKey } from './controller-context.js';
import type { PartitionReassignment } from './partition-reassignment.js';
import type { PartitionStateMachine } from './partition-state-machine.js';
import type { ReplicaLeaderElection } from './replica-leader-election.js';
import type { TopicChangeHandler } from './topic-change-handler.js';
import type { TopicDeletionManager } from './topic-deletion-manager.js';

/**
 * Kafka's onControllerFailover, up to acting: loads the live brokers, topics and partition states from ZooKeeper
 * (watching what the controller must follow), elects leaders for new or offline partitions, and tells every broker
 * the metadata and the current leadership. The channel to the brokers is open already.
 */
export async function loadControllerContext(
  d: ControllerDeps,
  brokerChanges: BrokerChangeHandler,
  topicChanges: TopicChangeHandler,
  partitions: PartitionStateMachine,
): Promise<void> {
  const { ctx, zk } = d;
  const brokers = await brokerChanges.readBrokers(await zk.getBrokerIds(d.enqueue({ type: 'BrokerChange' })));
  for (const b of brokers) {
    ctx.liveBrokers.set(b.id, b);
    d.channel().addBroker(b);
  }
  const topics = await zk.getTopics(d.enqueue({ type: 'TopicChange' }));
  for (const topic of topics) await topicChanges.loadTopic(topic);
  await zk.getIsrChangeNotifications(d.enqueue({ type: 'IsrChangeNotification' }));
  // Log dir failures reported while no controller listened are answered by the LeaderAndIsr sent below.
  const logDirEvents = await zk.getLogDirEventNotifications(d.enqueue({ type: 'LogDirEventNotification' }));
  if (logDirEvents.length > 0) await zk.deleteLogDirEventNotifications(logDirEvents.map((n) => n.name), ctx.epochZkVersion);

  const batch = d.newBatch();
  // Brokers must know the live brokers and every partition before they act on LeaderAndIsr.
  batch.addUpdateMetadata([...ctx.liveBrokers.keys()], ctx.allPartitions());
  batch.send();
  await partitions.electLeadersForNewOrOfflinePartitions(ctx.allPartitions(), batch);
  // Resend the current leadership to every live replica: brokers may have missed decisions.
  for (const tp of ctx.allPartitions()) batch.addLeaderAndIsr(ctx.replicasOf(tp.topic, tp.partition), tp);
  batch.send();
}

/**
 * The rest of failover, once acting: the work ZooKeeper holds for a controller (topic deletions, reassignments,
 * preferred replica elections), then the auto leader rebalance timer.
 */
export async function resumeControllerWork(
  d: ControllerDeps,
  deletion: TopicDeletionManager,
  reassignment: PartitionReassignment,
  elections: ReplicaLeaderElection,
): Promise<void> {
  await deletion.onTopicDeletion();
  // Reassignments: what /admin/reassign_partitions asks for, then those the assignment znodes say are in progress.
  const started = await reassignment.onPartitionReassignmentZnode();
  const resuming = d.newBatch();
  await reassignment.resume(resuming, (tp) => !started.has(tpKey(tp.topic, tp.partition)));
  resuming.send();
  await elections.onPreferredReplicaElectionZnode();
  elections.startAutoRebalance();
}
