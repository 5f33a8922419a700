/** Partition lists (isr_change_notification, preferred_replica_election, reassign_partitions) and log dir events. */
import { fail, int, intArray, json, parseObject, str, type Json } from './znode-json.js';

export interface TopicPartition {
  topic: string;
  partition: number;
}

export function encodePartitionList(partitions: TopicPartition[]): Buffer {
  return json({ version: 1, partitions: partitions.map((p) => ({ topic: p.topic, partition: p.partition })) });
}

function partitionEntries(data: Buffer | string, what: string): Json[] {
  const raw = parseObject(data, what).partitions;
  if (!Array.isArray(raw) || !raw.every((e) => e !== null && typeof e === 'object')) fail(what, `"partitions" must be an array of objects`);
  return raw as Json[];
}

export function decodePartitionList(data: Buffer | string, what = 'partition list'): TopicPartition[] {
  return partitionEntries(data, what).map((e) => ({ topic: str(e, 'topic', what), partition: int(e, 'partition', what) }));
}

export const encodeIsrChangeNotification = encodePartitionList;
export const decodeIsrChangeNotification = (data: Buffer | string): TopicPartition[] => decodePartitionList(data, '/isr_change_notification');
export const encodePreferredReplicaElection = encodePartitionList;
export const decodePreferredReplicaElection = (data: Buffer | string): TopicPartition[] => decodePartitionList(data, '/admin/preferred_replica_election');

/** Kafka's LogDirUtils event: 1 = a log dir of the broker failed (KIP-112). */
export const LOG_DIR_FAILURE_EVENT = 1;

/** /log_dir_event_notification/log_dir_event_<seq>: `{"version":1,"broker":<id>,"event":1}`. */
export function encodeLogDirEventNotification(brokerId: number, event: number = LOG_DIR_FAILURE_EVENT): Buffer {
  return json({ version: 1, broker: brokerId, event });
}

export function decodeLogDirEventNotification(data: Buffer | string): { brokerId: number; event: number } {
  const what = '/log_dir_event_notification';
  const o = parseObject(data, what);
  return { brokerId: int(o, 'broker', what), event: int(o, 'event', what) };
}

export interface PartitionReassignment extends TopicPartition {
  replicas: number[];
}

export function encodeReassignment(partitions: PartitionReassignment[]): Buffer {
  return json({ version: 1, partitions: partitions.map((p) => ({ topic: p.topic, partition: p.partition, replicas: p.replicas })) });
}

export function decodeReassignment(data: Buffer | string): PartitionReassignment[] {
  const what = '/admin/reassign_partitions';
  return partitionEntries(data, what).map((e) => ({ topic: str(e, 'topic', what), partition: int(e, 'partition', what), replicas: intArray(e.replicas, what, 'replicas') }));
}
