import { type KafkaZkClient, type ZkWatcher } from '@gregor/zookeeper';
import type { BrokerEndpoint } from './metadata-channel.js';
import { threadIdsPerTopic, topicCountOf, type ConsumerThreadId, type TopicCount } from './topic-count.js';

/** Every member's threads per topic, read from /consumers/<group>/ids (Kafka's getConsumersPerTopic). */
export async function consumersPerTopic(
  zk: KafkaZkClient,
  group: string,
  allTopics: readonly string[],
  excludeInternalTopics: boolean,
  membershipWatcher?: ZkWatcher,
): Promise<{ consumerIds: string[]; consumersForTopic: Map<string, ConsumerThreadId[]> }> {
  const consumerIds = await zk.getConsumerIds(group, membershipWatcher);
  const registrations = await Promise.all(consumerIds.map((id) => zk.getConsumerRegistration(group, id)));
  const consumersForTopic = new Map<string, ConsumerThreadId[]>();
  consumerIds.forEach((id, i) => {
    const registration = registrations[i];
    if (!registration) return; // left while we read
    for (const [topic, threads] of threadIdsPerTopic(topicCountOf(id, registration), allTopics, excludeInternalTopics)) {
      consumersForTopic.set(topic, [...(consumersForTopic.get(topic) ?? []), ...threads]);
    }
  });
  return { consumerIds: consumerIds.filter((_, i) => registrations[i] !== null), consumersForTopic };
}

/** This consumer's topics → threads (wildcards need the topic list). */
export function myTopicThreadIds(count: TopicCount, allTopics: readonly string[], excludeInternalTopics: boolean): Map<string, ConsumerThreadId[]> {
  return threadIdsPerTopic(count, allTopics, excludeInternalTopics);
}

/** A topic's partition ids from /brokers/topics/<t> ([] while it does not exist), watching it for changes or creation. */
export async function partitionsOfTopic(zk: KafkaZkClient, topic: string, watcher?: ZkWatcher): Promise<number[]> {
  const node = await zk.getTopicAssignment(topic, watcher);
  // A topic that does not exist yet: watch for its creation instead.
  if (!node && watcher) await zk.topicExists(topic, watcher);
  return node ? [...node.assignment.partitions.keys()].sort((a, b) => a - b) : [];
}

/** The registered brokers' PLAINTEXT (else first) endpoints. */
export async function registeredBrokers(zk: KafkaZkClient, watcher?: ZkWatcher): Promise<BrokerEndpoint[]> {
  if (watcher) await zk.getBrokerIds(watcher);
  const brokers = await zk.getAllBrokers();
  return brokers.flatMap((b) => {
    const e = b.endpoints.find((x) => x.securityProtocol === 'PLAINTEXT') ?? b.endpoints[0];
    return e ? [{ brokerId: b.brokerId, host: e.host, port: e.port }] : [];
  });
}
