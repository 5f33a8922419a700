import type { Logger } from '@gregor/common';
import type { KafkaZkClient, ZkWatcher } from '@gregor/zookeeper';
import { topicAllowed, type TopicCount } from './topic-count.js';

/** What the listeners do when they fire. */
export interface ListenerTarget {
  trigger(reason: string): void;
  readonly log: Logger;
}

/** Kafka's ZKRebalancerListener watch: a child of /consumers/<group>/ids came or went. */
export function membershipWatcher(target: ListenerTarget): ZkWatcher {
  return (event) => {
    if (event.type === 'childrenChanged') target.trigger('group membership changed');
  };
}

/** Kafka's ZKTopicPartitionChangeListener: /brokers/topics/<t> created or changed (partitions added); deletion is only logged. */
export function topicPartitionChangeWatcher(target: ListenerTarget): ZkWatcher {
  return (event) => {
    if (event.type === 'dataChanged' || event.type === 'created') target.trigger(`partitions of ${event.path} changed`);
    else if (event.type === 'deleted') target.log.warn({ path: event.path }, 'topic deleted: it keeps its owners until the next rebalance');
  };
}

/** After a rebalance that found no broker: rebalance when one registers. */
export function brokersWatcher(target: ListenerTarget): ZkWatcher {
  return (event) => {
    if (event.type === 'childrenChanged') target.trigger('brokers registered');
  };
}

/** Wildcard subscriptions: a topic matching the filter was created or deleted (the watch is re-armed through `rearm`). */
export function allTopicsWatcher(
  target: ListenerTarget,
  rearm: (read: (watcher: ZkWatcher | undefined) => Promise<string[]>) => Promise<string[]>,
  zk: () => KafkaZkClient,
  count: () => TopicCount | null,
  excludeInternal: boolean,
  current: () => ReadonlySet<string>,
): ZkWatcher {
  return async (event) => {
    if (event.type !== 'childrenChanged') return;
    const c = count();
    if (!c || c.pattern === 'static') return;
    const filter = { kind: c.pattern, regex: c.regex } as const;
    const matching = (await rearm((w) => zk().getAllTopics(w))).filter((t) => topicAllowed(filter, t, excludeInternal));
    const known = current();
    if (matching.length !== known.size || matching.some((t) => !known.has(t))) target.trigger('topics matching the filter changed');
    else target.log.debug('topic list changed, no matching topic added or removed');
  };
}
