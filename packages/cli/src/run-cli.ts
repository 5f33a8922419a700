import { ConfigError, GregorError, TimeoutError } from '@gregor/common';
import { brokerCommand } from './commands/broker.js';
import { clusterCommand } from './commands/cluster.js';
import { consumeCommand } from './commands/consume.js';
import { consumerServiceCommand } from './commands/consumer-service.js';
import { groupsCommand } from './commands/groups.js';
import { produceCommand } from './commands/produce.js';
import { topicsCommand } from './commands/topics.js';
import { usersCommand } from './commands/users.js';
import { isParseArgsError, UsageError } from './usage-error.js';
import { cliVersion } from './version.js';

export const mainUsage = `gregor <command> [options]     (gregor <command> --help for details)

Commands:
  broker    run one broker in the foreground (--config server.properties)
  cluster   a local cluster: up [--detach] | down | status | start|stop|kill <node>
  topics    create | list | describe | delete
  produce   send the lines of stdin to a topic
  consume   print the records of a topic (--group G --zookeeper ...: as a group member)
  groups    consumer groups: list | describe G (members, owners, offsets, lag)
  users     SCRAM users in ZooKeeper: create | delete | list
  consumer-service  a long-running group consumer with an HTTP status API (--config file)
  version   print the version`;

const COMMANDS: Record<string, (argv: string[]) => Promise<number>> = {
  broker: brokerCommand,
  cluster: clusterCommand,
  topics: topicsCommand,
  produce: (argv) => produceCommand(argv),
  consume: (argv) => consumeCommand(argv),
  groups: groupsCommand,
  users: usersCommand,
  'consumer-service': consumerServiceCommand,
  version: async (argv) => {
    if (argv.includes('--help') || argv.includes('-h')) {
      console.log('gregor version\n\nPrints the version of gregor and of Node.js.');
      return 0;
    }
    if (argv.length > 0) throw new UsageError(`unexpected arguments: ${argv.join(' ')}`, 'gregor version');
    console.log(`gregor ${cliVersion()} (node ${process.version})`);
    return 0;
  },
};

/** Runs one command line; returns the exit code (0 ok, 1 failure, 2 usage error). */
export async function runCli(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? console.error : console.log)(mainUsage);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-V') return COMMANDS['version']!([]);
  const command = COMMANDS[name];
  if (!command) {
    console.error(`gregor: unknown command "${name}"\n\n${mainUsage}`);
    return 2;
  }
  try {
    return await command(rest);
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`gregor ${name}: ${error.message}${error.usage ? `\n\n${error.usage}` : ''}`);
      return 2;
    }
    if (isParseArgsError(error)) {
      console.error(`gregor ${name}: ${error.message}`);
      return 2;
    }
    console.error(`gregor ${name}: error: ${describeError(error)}`);
    if (process.env['GREGOR_DEBUG'] && error instanceof Error) console.error(error.stack);
    return 1;
  }
}

function describeError(error: unknown): string {
  if (error instanceof ConfigError || error instanceof TimeoutError) return error.message;
  if (error instanceof GregorError) {
    const cause = error.cause instanceof Error && !error.message.includes(error.cause.message) ? ` (${error.cause.message})` : '';
    const hint = error.codeName === 'NETWORK_EXCEPTION' ? '; is a broker running there? `gregor cluster status` tells' : '';
    return `${error.message}${cause} [${error.codeName}]${hint}`;
  }
  return error instanceof Error ? error.message : String(error);
}
