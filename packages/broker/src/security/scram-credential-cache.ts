import type { Logger } from '@gregor/common';
import { isScramMechanism, parseScramCredential, SCRAM_MECHANISMS, type ScramCredential, type ScramMechanism } from '@gregor/protocol';
import type { KafkaZkClient } from '@gregor/zookeeper';

/**
 * Kafka's CredentialCache for SCRAM: every user's credentials from /config/users/<user>, loaded at
 * startup and refreshed for each `users/<user>` config change notification, so SASL exchanges never
 * wait for ZooKeeper.
 */
export class ScramCredentialCache {
  readonly #byMechanism = new Map<ScramMechanism, Map<string, ScramCredential>>(
    (Object.keys(SCRAM_MECHANISMS) as ScramMechanism[]).map((m) => [m, new Map()]),
  );
  readonly #log: Logger;

  constructor(log: Logger) {
    this.#log = log;
  }

  get(mechanism: ScramMechanism, user: string): ScramCredential | null {
    return this.#byMechanism.get(mechanism)?.get(user) ?? null;
  }

  /** Replaces one user's credentials with those of its config (mechanisms absent there are removed). */
  update(user: string, config: Readonly<Record<string, string>>): void {
    for (const [mechanism, users] of this.#byMechanism) {
      const text = config[mechanism];
      if (text === undefined) {
        users.delete(user);
        continue;
      }
      try {
        users.set(user, parseScramCredential(text));
      } catch (err) {
        users.delete(user);
        this.#log.warn({ user, mechanism, err: (err as Error).message }, 'ignoring an unreadable SCRAM credential in /config/users');
      }
    }
    for (const key of Object.keys(config)) if (key.startsWith('SCRAM-') && !isScramMechanism(key)) this.#log.warn({ user, key }, 'unknown SCRAM mechanism in /config/users');
  }

  /** Reads every user under /config/users. */
  async load(zk: KafkaZkClient): Promise<void> {
    for (const user of await zk.getUsers()) this.update(user, await zk.getUserConfig(user));
  }

  /** After a `users/<sanitized user>` notification: re-read that user. */
  async refresh(zk: KafkaZkClient, user: string): Promise<void> {
    this.update(user, await zk.getUserConfig(user));
  }
}
