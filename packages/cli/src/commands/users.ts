import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ALL_SCRAM_MECHANISMS, deleteScramUser, listScramUsers, upsertScramUser } from '@gregor/broker';
import { intOption, parsed, requireOption } from '../args.js';
import { UsageError } from '../usage-error.js';
import { cliZooKeeper } from '../zookeeper-factory.js';

export const usersUsage = `gregor users <create|delete|list> [options]

SCRAM users in ZooKeeper, stored as kafka-configs --entity-type users stores them
(/config/users/<user>: salted SCRAM-SHA-256/512 credentials, never the password); brokers pick
changes up within moments.
  create --user U (--password P | --password-file F)   add or replace the user's credentials
  delete --user U                                       remove them
  list                                                  users with their mechanisms and iterations

Options:
  --zookeeper HOST:PORT[,...]   ZooKeeper of the cluster (default 127.0.0.1:2181)
  --mechanism M                 SCRAM-SHA-256 or SCRAM-SHA-512 (repeatable; default both)
  --iterations N                PBKDF2 iterations (default and minimum 4096)
  --password-file F             read the password from the first line of F (- = stdin)
  --format text|json            (list)
  --help, -h`;

const OPTIONS = {
  zookeeper: { type: 'string' },
  user: { type: 'string' },
  password: { type: 'string' },
  'password-file': { type: 'string' },
  mechanism: { type: 'string', multiple: true },
  iterations: { type: 'string' },
  format: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function usersCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parsed(() => parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true }), usersUsage);
  if (values.help) {
    console.log(usersUsage);
    return 0;
  }
  const [action, ...rest] = positionals;
  if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`, usersUsage);
  if (action !== 'create' && action !== 'delete' && action !== 'list') {
    throw new UsageError(action === undefined ? 'missing action' : `unknown action "${action}"`, usersUsage);
  }
  const mechanisms = values.mechanism ?? ALL_SCRAM_MECHANISMS;
  const format = values.format ?? 'text';
  if (format !== 'text' && format !== 'json') throw new UsageError(`--format must be text or json, got "${format}"`, usersUsage);
  let user = '';
  let password = '';
  if (action !== 'list') user = requireOption(values.user, 'user', usersUsage);
  if (action === 'create') password = readPassword(values.password, values['password-file']);
  const iterations = intOption(values.iterations, 'iterations', usersUsage, 4096, 4096);

  const { zk, close } = await cliZooKeeper(values.zookeeper);
  try {
    if (action === 'create') {
      await upsertScramUser(zk, user, password, mechanisms, iterations);
      console.log(`Completed updating config for user ${user}: ${mechanisms.join(', ')} with ${iterations} iterations.`);
      return 0;
    }
    if (action === 'delete') {
      if (!(await deleteScramUser(zk, user, mechanisms))) {
        console.error(`gregor users: user ${user} has no ${mechanisms.join('/')} credentials`);
        return 1;
      }
      console.log(`Completed deleting ${mechanisms.join(', ')} credentials of user ${user}.`);
      return 0;
    }
    const users = await listScramUsers(zk);
    if (format === 'json') console.log(JSON.stringify(users));
    else for (const u of users) console.log(`${u.user}\t${u.credentials.map((c) => `${c.mechanism}(iterations=${c.iterations})`).join(' ')}`);
    return 0;
  } finally {
    await close();
  }
}

function readPassword(password: string | undefined, file: string | undefined): string {
  if (password !== undefined && file !== undefined) throw new UsageError('give --password or --password-file, not both', usersUsage);
  if (password !== undefined) return password;
  if (file === undefined) throw new UsageError('--password or --password-file is required', usersUsage);
  const text = readFileSync(file === '-' ? 0 : file, 'utf8');
  const first = text.split(/\r?\n/)[0] ?? '';
  if (first === '') throw new UsageError(`no password in ${file === '-' ? 'stdin' : file}`, usersUsage);
  return first;
}
