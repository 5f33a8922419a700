import type { BrokerServices } from '../../broker-services.js';
import type { KafkaApis } from '../../kafka-apis.js';
import { installClusterAuthorization } from './cluster-apis.js';
import { installGroupAuthorization } from './group-apis.js';
import { installInterBrokerChecks } from './inter-broker.js';
import { installReplicaChecks, installTopicAuthorization } from './topic-apis.js';

/**
 * Puts Kafka's per-API permission checks around the registered handlers (KafkaApis' authorize calls):
 * the controller and replica APIs always (ClusterAction, or the inter-broker listener without an
 * authorizer); the topic, group and cluster checks only when an authorizer is configured, so a
 * broker without one pays nothing for them. The ACL APIs check for themselves.
 */
export function installAuthorization(apis: KafkaApis, s: BrokerServices): void {
  const log = s.log.child({ component: 'authorization' });
  installInterBrokerChecks(apis, s.auth, log);
  installReplicaChecks(apis, s.auth, log);
  if (!s.auth.authorizer) return;
  installTopicAuthorization(apis, s.auth, s);
  installGroupAuthorization(apis, s.auth);
  installClusterAuthorization(apis, s.auth);
}
