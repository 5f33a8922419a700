import { INTERNAL_TOPICS } from '@gregor/common';
import type { ConsumerRegistration, SubscriptionPattern } from '@gregor/zookeeper';

/**
 * A consumer thread: `<consumerId>-<index>`. Kafka orders thread ids by comparing these strings,
 * so `c-10` sorts before `c-2`; the assignors depend on that order.
 */
export interface ConsumerThreadId {
  consumerId: string;
  threadId: number;
}

export function threadIdString(t: ConsumerThreadId): string {
  return `${t.consumerId}-${t.threadId}`;
}

export function compareThreadIds(a: ConsumerThreadId, b: ConsumerThreadId): number {
  const x = threadIdString(a);
  const y = threadIdString(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** A topic filter of createMessageStreamsByFilter: Java-style full-match regex (Kafka's Whitelist/Blacklist). */
export interface TopicFilter {
  kind: 'white_list' | 'black_list';
  regex: string;
}

/** Kafka's TopicFilter: commas separate alternatives, surrounding quotes and spaces are dropped. */
export function topicFilterRegex(filter: TopicFilter): RegExp {
  const cleaned = filter.regex.trim().replace(/,/g, '|').replace(/\s/g, '').replace(/^["']+|["']+$/g, '');
  try {
    return new RegExp(`^(?:${cleaned})$`);
  } catch (error) {
    throw new SyntaxError(`invalid topic filter regex "${filter.regex}": ${(error as Error).message}`);
  }
}

export function topicAllowed(filter: TopicFilter, topic: string, excludeInternalTopics: boolean): boolean {
  if (excludeInternalTopics && INTERNAL_TOPICS.has(topic)) return false;
  const matches = topicFilterRegex(filter).test(topic);
  return filter.kind === 'white_list' ? matches : !matches;
}

/** What a consumer subscribes to (Kafka's TopicCount): fixed topics, or a filter over every topic. */
export type TopicCount =
  | { pattern: 'static'; consumerId: string; topics: Readonly<Record<string, number>> }
  | { pattern: 'white_list' | 'black_list'; consumerId: string; regex: string; numStreams: number };

export function registrationOf(count: TopicCount, now = Date.now()): ConsumerRegistration {
  const subscription = count.pattern === 'static' ? { ...count.topics } : { [count.regex]: count.numStreams };
  return { subscription, pattern: count.pattern, timestamp: now };
}

/** Rebuilds another member's TopicCount from its registration znode. */
export function topicCountOf(consumerId: string, registration: ConsumerRegistration): TopicCount {
  if (registration.pattern === 'static') return { pattern: 'static', consumerId, topics: registration.subscription };
  const [regex, numStreams] = Object.entries(registration.subscription)[0] ?? ['', 1];
  return { pattern: registration.pattern as Exclude<SubscriptionPattern, 'static'>, consumerId, regex, numStreams };
}

/** topic → this consumer's thread ids for it, given the topics that exist (wildcards) — Kafka's getConsumerThreadIdsPerTopic. */
export function threadIdsPerTopic(count: TopicCount, allTopics: readonly string[], excludeInternalTopics: boolean): Map<string, ConsumerThreadId[]> {
  const out = new Map<string, ConsumerThreadId[]>();
  const streams = (n: number): ConsumerThreadId[] => Array.from({ length: n }, (_, i) => ({ consumerId: count.consumerId, threadId: i }));
  if (count.pattern === 'static') {
    for (const [topic, n] of Object.entries(count.topics)) out.set(topic, streams(n));
  } else {
    const filter: TopicFilter = { kind: count.pattern, regex: count.regex };
    for (const topic of allTopics) if (topicAllowed(filter, topic, excludeInternalTopics)) out.set(topic, streams(count.numStreams));
  }
  return out;
}
