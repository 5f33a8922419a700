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
 * /config/users/<sanitized user>                      {"version":1,"config":{"SCRAM-SHA-256":"salt=..,stored_key=..,server_key=..,iterations=N",...}}
 * /config/clients
 * /admin/delete_topics/<t>                            empty; removed by the controller when done
 * /admin/reassign_partitions                          {"version":1,"partitions":[{"topic","partition","replicas"}]}
 * /admin/preferred_replica_election                   {"version":1,"partitions":[{"topic","partition"}]}
 * /isr_change_notification/isr_change_<seq> sequential {"version":1,"partitions":[{"topic","partition"}]}
 * /log_dir_event_notification/log_dir_event_<seq>
 * /latest_producer_id_block
 * /consumers/<g>/ids/<consumerId>          ephemeral  {"version":1,"subscription":{...},"pattern":"static","timestamp":"<ms>"}
 * /consumers/<g>/owners/<t>/<p>            ephemeral  "<consumerId>-<threadIndex>"
 * /consumers/<g>/offsets/<t>/<p>                      decimal text: the next offset to consume
 * /kafka-acl/<ResourceType>/<name>                    {"version":1,"acls":[{"principal","permissionType","operation","host"}]}  literal ACLs
 * /kafka-acl-extended/prefixed/<ResourceType>/<prefix> same, prefixed ACLs
 * /kafka-acl-changes/acl_changes_<seq>     sequential "<ResourceType>:<name>"
 * /kafka-acl-extended-changes/acl_changes_<seq> seq.  {"version":1,"resourceType","name","patternType":"PREFIXED"}
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

/**
 * Kafka's Sanitizer.sanitize for user names in znode names: URL-encoding (UTF-8) as Java's URLEncoder
 * does it, with '*' as %2A and ' ' as %20.
 */
export function sanitizeEntityName(name: string): string {
  let out = '';
  for (const byte of Buffer.from(name, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9._-]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Sanitizer.desanitize: URL-decoding ('+' is a space, as Java's URLDecoder reads it). */
export function desanitizeEntityName(name: string): string {
  return decodeURIComponent(name.replace(/\+/g, ' '));
}

/** /config/users/<sanitized user>: the user's SCRAM credentials (and quotas). */
export function configUserPath(user: string): string {
  return `${configUsersPath}/${segment('user', sanitizeEntityName(user))}`;
}

/** The entity_path of a config change notification for a user: `users/<sanitized user>`. */
export function userConfigEntityPath(user: string): string {
  return `users/${sanitizeEntityName(user)}`;
}

// ---- ACLs (AclAuthorizer) ------------------------------------------------------------------------

/** Kafka's ResourceType names as they appear in ACL znode paths. */
export const aclResourceTypes = ['Topic', 'Group', 'Cluster', 'TransactionalId', 'DelegationToken'] as const;
export type AclResourceTypeName = (typeof aclResourceTypes)[number];
/** Pattern types that are stored (LITERAL in /kafka-acl, PREFIXED in /kafka-acl-extended/prefixed). */
export type AclPatternTypeName = 'LITERAL' | 'PREFIXED';

export const literalAclPath = '/kafka-acl';
export const extendedAclPath = '/kafka-acl-extended';
export const literalAclChangesPath = '/kafka-acl-changes';
export const extendedAclChangesPath = '/kafka-acl-extended-changes';
/** Prefix of the sequential nodes under both change paths. */
export const aclChangeNotificationPrefix = 'acl_changes_';

/** The root of one pattern type's ACLs: /kafka-acl or /kafka-acl-extended/prefixed. */
export function aclStorePath(patternType: AclPatternTypeName): string {
  return patternType === 'LITERAL' ? literalAclPath : `${extendedAclPath}/prefixed`;
}

export function aclResourceTypePath(patternType: AclPatternTypeName, resourceType: AclResourceTypeName): string {
  return `${aclStorePath(patternType)}/${resourceType}`;
}

export function aclResourcePath(patternType: AclPatternTypeName, resourceType: AclResourceTypeName, name: string): string {
  return `${aclResourceTypePath(patternType, resourceType)}/${segment('resource name', name)}`;
}

export function aclChangesPath(patternType: AclPatternTypeName): string {
  return patternType === 'LITERAL' ? literalAclChangesPath : extendedAclChangesPath;
}

/** Every path AclAuthorizer creates at startup (KafkaZkClient.createAclPaths). */
export function aclPersistentPaths(): string[] {
  const out: string[] = [];
  for (const p of ['LITERAL', 'PREFIXED'] as const) {
    out.push(aclStorePath(p), ...aclResourceTypes.map((t) => aclResourceTypePath(p, t)), aclChangesPath(p));
  }
  return out;
}
