/**
 * A partition's leadership as the controller decided it (Kafka's LeaderIsrAndControllerEpoch): the content
 * of /brokers/topics/T/partitions/P/state, and the core of every LeaderAndIsr and UpdateMetadata partition
 * state. Its ZooKeeper JSON is read and written in one place, @gregor/zookeeper's data.ts.
 */
export interface PartitionState {
  /** The leader's broker id; -1 = no leader, -2 (LeaderDuringDelete) = the topic is being deleted. */
  leader: number;
  leaderEpoch: number;
  isr: number[];
  /** Epoch of the controller that made the last leadership decision. */
  controllerEpoch: number;
}

/** The partition state the controller sends to brokers (LeaderAndIsr, UpdateMetadata): with the replicas and the state znode's zkVersion. */
export interface PartitionStateWithReplicas extends PartitionState {
  zkVersion: number;
  replicas: number[];
}
