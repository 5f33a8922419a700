import type { Connection } from '@gregor/net';
import { ErrorCode } from '@gregor/common';
import type { AdminContext } from './admin-context.js';
import { fromKafkaError } from './errors.js';

/** The admin server's Kafka connection to a live broker (this one included) on the inter-broker listener. */
export function brokerConnection({ server, leaders }: AdminContext, brokerId: number): Connection {
  const listener = server.config.interBrokerListenerName;
  const endpoint = server.metadataCache.aliveBroker(brokerId)?.endpoints.find((e) => e.listenerName === listener);
  if (!endpoint) throw fromKafkaError(ErrorCode.BROKER_NOT_AVAILABLE, `Broker ${brokerId} is not alive or has no ${listener} endpoint.`);
  return leaders.get(brokerId, endpoint);
}
