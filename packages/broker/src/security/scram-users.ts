import { ConfigError } from '@gregor/common';
import { DEFAULT_SCRAM_ITERATIONS, formatScramCredential, generateScramCredential, isScramMechanism, parseScramCredential, SCRAM_MECHANISMS, type ScramMechanism } from '@gregor/protocol';
import type { KafkaZkClient } from '@gregor/zookeeper';

export const ALL_SCRAM_MECHANISMS = Object.keys(SCRAM_MECHANISMS) as ScramMechanism[];

export interface ScramUser {
  user: string;
  credentials: { mechanism: ScramMechanism; iterations: number }[];
}

function checkMechanisms(mechanisms: readonly string[]): ScramMechanism[] {
  if (mechanisms.length === 0) throw new ConfigError('at least one SCRAM mechanism is needed');
  for (const m of mechanisms) if (!isScramMechanism(m)) throw new ConfigError(`unknown SCRAM mechanism "${m}": use ${ALL_SCRAM_MECHANISMS.join(' or ')}`);
  return [...new Set(mechanisms)] as ScramMechanism[];
}

/**
 * Adds or replaces a user's SCRAM credentials as `kafka-configs --alter --entity-type users
 * --add-config 'SCRAM-SHA-256=[iterations=N,password=P]'` does: new salted credentials in
 * /config/users/<user> (other keys such as quotas kept), then a users/<user> change notification
 * that every broker follows. The password itself is never stored.
 */
export async function upsertScramUser(zk: KafkaZkClient, user: string, password: string, mechanisms: readonly string[] = ALL_SCRAM_MECHANISMS, iterations = DEFAULT_SCRAM_ITERATIONS): Promise<void> {
  if (user === '') throw new ConfigError('the user name must not be empty');
  if (password === '') throw new ConfigError('the password must not be empty');
  const chosen = checkMechanisms(mechanisms);
  if (!Number.isInteger(iterations) || iterations < DEFAULT_SCRAM_ITERATIONS) throw new ConfigError(`iterations must be an integer of at least ${DEFAULT_SCRAM_ITERATIONS}, got ${iterations}`);
  const config = { ...(await zk.getUserConfig(user)) };
  for (const m of chosen) config[m] = formatScramCredential(generateScramCredential(m, password, iterations));
  await zk.changeUserConfig(user, config);
}

/** Removes a user's SCRAM credentials (`--delete-config SCRAM-SHA-256,...`); false when it had none of them. */
export async function deleteScramUser(zk: KafkaZkClient, user: string, mechanisms: readonly string[] = ALL_SCRAM_MECHANISMS): Promise<boolean> {
  const chosen = checkMechanisms(mechanisms);
  const config = { ...(await zk.getUserConfig(user)) };
  const had = chosen.filter((m) => config[m] !== undefined);
  if (had.length === 0) return false;
  for (const m of had) delete config[m];
  await zk.changeUserConfig(user, config);
  return true;
}

/** Users with SCRAM credentials and their mechanisms and iteration counts (never the keys). */
export async function listScramUsers(zk: KafkaZkClient): Promise<ScramUser[]> {
  const out: ScramUser[] = [];
  for (const user of await zk.getUsers()) {
    const config = await zk.getUserConfig(user);
    const credentials = ALL_SCRAM_MECHANISMS.filter((m) => config[m] !== undefined).flatMap((mechanism) => {
      try {
        return [{ mechanism, iterations: parseScramCredential(config[mechanism]!).iterations }];
      } catch {
        return [];
      }
    });
    if (credentials.length > 0) out.push({ user, credentials });
  }
  return out;
}
