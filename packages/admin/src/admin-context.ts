import type { KafkaServer } from '@gregor/broker';
import type { ConnectionPool } from '@gregor/net';

/** What the routes use: the broker, and the admin server's own connections to partition leaders (and coordinators). */
export interface AdminContext {
  server: KafkaServer;
  leaders: ConnectionPool;
  /** How long a write waits for its outcome to show in this broker's metadata. */
  writeTimeoutMs: number;
}
