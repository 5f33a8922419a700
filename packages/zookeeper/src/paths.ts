/**
 * The znode layout of ZooKeeper-era Kafka (2.4), one builder per path. Nothing else in gregor spells a path.
 *
 * /cluster/id                                         {"version":"1","id":"<22-char base64url uuid>"}
 * /controller                              ephemeral  {"version":1,"brokerid":N,"timestamp":"<ms>"}
 * /controller_epoch                                   decimal text
 * /brokers/ids/<id>                        ephemeral  broker registration v4
 * /brokers/topics/<t>                                 replica assignment {"version":2,"partitions":{...},...}
 * /brokers/topics/<t>/partitions/<p>/state            {"controller_epoch","leader","version":1,"leader_epoch","isr"}
 * /brokers/seqid                                      zkVersion = generated broker id sequence
 * /config/topics/<t>                                  {"version":1,"config":{...}}
 * /config/brokers/<id>                                {"version":1,"config":{...}}  dynamic per-broker configs
 * /config/brokers/<default>                           {"version":1,"config":{...}}  dynamic cluster-wide defaults
 * /config/changes/config_change_<seq>      sequential {"version":2,"entity_path":"topics/<t>" | "brokers/<id>" | "brokers/<default>"}
 * /config/{clients,users}
 * /admin/delete_topics/<t>                            empty; removed by the controller when done
 * /admin/reassign_partitions                          {"version":1,"partitions":[{"topic","partition","replicas"}]}
 * /admin/preferred_replica_election                   {"version":1,"partitions":[{"topic","partition"}]}
 * /isr_change_notification/isr_change_<seq> sequential {"version":1,"partitions":[{"topic","partition"}]}
 * /log_dir_event_notification/log_dir_event_<seq>
 * /latest_producer_id_block
 * /consumers/<g>/ids/<consumerId>          ephemeral  {"version":1,"subscription":{...},"pattern":"static","timestamp":"<ms>"}
 * /consumers/<g>/owners/<t>/<p>            ephemeral  "<consumerId>-<threadIndex>"
 * /consumers/<g>/offsets/<t>/<p>                      decimal text: the next offset to consume
 */

/** One path segment (topic, group, consumer id): must not be empty or contain '/'. */
function segment(kind: string, value: string | number): string {
  const text = String(value);
  if (text.length === 0 || text.includes('/') || text === '.' || text === '..') {
    throw new Error(`invalid ${kind} for a ZooKeeper path: ${JSON.stringify(text)}`);
  }
  return text;
}

export const clusterIdPath = '/cluster/id';
export const controllerPath = '/controller';
export const controllerEpochPath = '/controller_epoch';

export const brokersPath = '/brokers';
export const brokerIdsPath = '/brokers/ids';
export const brokerSequenceIdPath = '/brokers/seqid';
export const topicsPath = '/brokers/topics';

export const configPath = '/config';
export const configChangesPath = '/config/changes';
export const configTopicsRootPath = '/config/topics';
export const configClientsPath = '/config/clients';
export const configUsersPath = '/config/users';
export const configBrokersPath = '/config/brokers';
/** Kafka's ConfigEntityName.Default: the entity name of cluster-wide defaults (/config/brokers/<default>). */
export const configEntityDefault = '<default>';
/** Prefix of the sequential nodes under /config/changes. */
export const configChangeNotificationPrefix = 'config_change_';

export const adminPath = '/admin';
export const deleteTopicsRootPath = '/admin/delete_topics';
export const reassignPartitionsPath = '/admin/reassign_partitions';
export const preferredReplicaElectionPath = '/admin/preferred_replica_election';

export const isrChangeNotificationPath = '/isr_change_notification';
/** Prefix of the sequential nodes under /isr_change_notification. */
export const isrChangeNotificationPrefix = 'isr_change_';
export const logDirEventNotificationPath = '/log_dir_event_notification';
/** Prefix of the sequential nodes under /log_dir_event_notification (KIP-112). */
export const logDirEventNotificationPrefix = 'log_dir_event_';
export const latestProducerIdBlockPath = '/latest_producer_id_block';
export const consumersPath = '/consumers';

/** Persistent parents every broker ensures at startup (KafkaZkClient.createTopLevelPaths). */
export const persistentPaths: readonly string[] = [
  consumersPath,
  brokerIdsPath,
  topicsPath,
  brokerSequenceIdPath,
  configChangesPath,
  configTopicsRootPath,
  configClientsPath,
  configUsersPath,
  configBrokersPath,
  deleteTopicsRootPath,
  isrChangeNotificationPath,
  latestProducerIdBlockPath,
  logDirEventNotificationPath,
];

export function brokerPath(brokerId: number): string {
  return `${brokerIdsPath}/${segment('broker id', brokerId)}`;
}

export function topicPath(topic: string): string {
  return `${topicsPath}/${segment('topic', topic)}`;
}

export function topicPartitionsPath(topic: string): string {
  return `${topicPath(topic)}/partitions`;
}

export function topicPartitionPath(topic: string, partition: number): string {
  return `${topicPartitionsPath(topic)}/${segment('partition', partition)}`;
}

export function partitionStatePath(topic: string, partition: number): string {
  return `${topicPartitionPath(topic, partition)}/state`;
}

export function configTopicsPath(topic: string): string {
  return `${configTopicsRootPath}/${segment('topic', topic)}`;
}

/** A broker entity: its id, or `<default>` for the cluster-wide defaults. */
export type BrokerConfigEntity = number | typeof configEntityDefault;

export function configBrokerPath(entity: BrokerConfigEntity): string {
  if (entity !== configEntityDefault && !(Number.isInteger(entity) && entity >= 0)) throw new Error(`invalid broker config entity: ${JSON.stringify(entity)}`);
  return `${configBrokersPath}/${entity}`;
}

/** The entity_path of a config change notification for a broker entity: `brokers/<id>` or `brokers/<default>`. */
export function brokerConfigEntityPath(entity: BrokerConfigEntity): string {
  return configBrokerPath(entity).slice(`${configPath}/`.length);
}

export function configChangeNotificationSequencePath(sequenceNode: string): string {
  return `${configChangesPath}/${segment('notification', sequenceNode)}`;
}

export function deleteTopicsPath(topic: string): string {
  return `${deleteTopicsRootPath}/${segment('topic', topic)}`;
}

export function isrChangeNotificationSequencePath(sequenceNode: string): string {
  return `${isrChangeNotificationPath}/${segment('notification', sequenceNode)}`;
}

export function logDirEventNotificationSequencePath(sequenceNode: string): string {
  return `${logDirEventNotificationPath}/${segment('notification', sequenceNode)}`;
}

export function consumerGroupPath(group: string): string {
  return `${consumersPath}/${segment('group', group)}`;
}

export function consumerIdsPath(group: string): string {
  return `${consumerGroupPath(group)}/ids`;
}

export function consumerIdPath(group: string, consumerId: string): string {
  return `${consumerIdsPath(group)}/${segment('consumer id', consumerId)}`;
}

export function consumerOwnersPath(group: string, topic: string): string {
  return `${consumerGroupPath(group)}/owners/${segment('topic', topic)}`;
}

export function consumerOwnerPath(group: string, topic: string, partition: number): string {
  return `${consumerOwnersPath(group, topic)}/${segment('partition', partition)}`;
}

export function consumerOffsetsPath(group: string, topic: string): string {
  return `${consumerGroupPath(group)}/offsets/${segment('topic', topic)}`;
}

export function consumerOffsetPath(group: string, topic: string, partition: number): string {
  return `${consumerOffsetsPath(group, topic)}/${segment('partition', partition)}`;
}
