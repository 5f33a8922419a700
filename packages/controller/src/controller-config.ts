import type { Logger } from '@gregor/common';
import type { ClientSecurity } from '@gregor/client';
import type { ControllerChannel, ControllerChannelOptions } from './controller-channel-manager.js';
import type { ControllerContext } from './controller-context.js';
import type { ControllerEvent } from './controller-events.js';
import type { ControllerRequestBatch } from './controller-request-batch.js';
import type { ControllerZk } from './controller-zk.js';

export interface ControllerOptions {
  /** How requests reach brokers; default a ControllerChannelManager (tests record them instead). */
  channel?: (opts: ControllerChannelOptions) => ControllerChannel;
  /** Backoff of ZooKeeper calls retried after a connection error. */
  zkRetryBackoffMs?: { base: number; max: number };
}

export interface ControllerConfig {
  brokerId: number;
  interBrokerListenerName: string;
  /** TLS/SASL of the controller's connections to the inter-broker listener. */
  interBrokerSecurity?: ClientSecurity;
  uncleanLeaderElectionEnable: boolean;
  deleteTopicEnable: boolean;
  controllerSocketTimeoutMs: number;
  autoLeaderRebalanceEnable: boolean;
  leaderImbalanceCheckIntervalSeconds: number;
  leaderImbalancePerBrokerPercentage: number;
}

/** What KafkaController gives the parts that handle its events (all run on its one event loop). */
export interface ControllerDeps {
  readonly cfg: ControllerConfig;
  readonly ctx: ControllerContext;
  /** ZooKeeper, every call retried until answered or the session is lost. */
  readonly zk: ControllerZk;
  readonly log: Logger;
  /** The channel to the brokers (only while elected). */
  channel(): ControllerChannel;
  /** A batch of requests to brokers, sent together (only while elected). */
  newBatch(): ControllerRequestBatch;
  /** A callback (ZooKeeper watch, timer) that queues `event` on the event loop unless the controller stopped. */
  enqueue(event: ControllerEvent): () => void;
  /** The controller is shutting down: arm no timers. */
  stopped(): boolean;
}
