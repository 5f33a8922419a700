import type { KafkaServer } from '@gregor/broker';
import type { LeaderConnections } from './leader-connections.js';

/** What the routes use: the broker, and the admin server's own connections to partition leaders. */
export interface AdminContext {
  server: KafkaServer;
  leaders: LeaderConnections;
  /** How long a write waits for its outcome to show in this broker's metadata. */
  writeTimeoutMs: number;
}
