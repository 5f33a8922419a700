import { closestName, ConfigError, GregorError, TimeoutError } from '@gregor/common';
import { isParseArgsError, UsageError } from './usage-error.js';
import { cliVersion } from './version.js';

export const mainUsage = `gregor <command> [options]     (gregor <command> --help for details)

Commands:
  broker    run one broker in the foreground (--config server.properties)
  cluster   a local cluster: up [--detach] | down | status | start|stop|kill <node>
  topics    create | list | describe | alter | delete (or kafka-topics' --create, --list, ...)
  produce   send the lines of stdin to a topic (keys, headers, compression)
  consume   print the records of a topic (--group G: as a member of a consumer group)
  groups    consumer groups of both kinds: list | describe | delete | reset-offsets
  configs   topic and broker configs: describe | alter (like kafka-configs)
  reassign  move partitions between brokers: generate | execute | verify | cancel | list (Kafka's plan JSON)
  elect-leaders   preferred or unclean leader election (like kafka-leader-election)
  delete-records  delete records below an offset (like kafka-delete-records)
  users     SCRAM users in ZooKeeper: create | delete | list
  acls      ACLs through the brokers or in ZooKeeper: --add | --remove | --list (like kafka-acls)
  consumer-service  a long-running group consumer with an HTTP status API (--config file)
  version   print the version`;

// Each command's module is loaded when that command runs: loading all of them took ~0.9 s of every start of
// the CLI (`gregor topics` needs about half of that, `gregor cluster` a fifth).
const COMMANDS: Record<string, (argv: string[]) => Promise<number>> = {
  broker: async (argv) => (await import('./commands/broker.js')).brokerCommand(argv),
  cluster: async (argv) => (await import('./commands/cluster.js')).clusterCommand(argv),
  topics: async (argv) => (await import('./commands/topics.js')).topicsCommand(argv),
  produce: async (argv) => (await import('./commands/produce.js')).produceCommand(argv),
  consume: async (argv) => (await import('./commands/consume.js')).consumeCommand(argv),
  groups: async (argv) => (await import('./commands/groups.js')).groupsCommand(argv),
  users: async (argv) => (await import('./commands/users.js')).usersCommand(argv),
  acls: async (argv) => (await import('./commands/acls.js')).aclsCommand(argv),
  configs: async (argv) => (await import('./commands/configs.js')).configsCommand(argv),
  reassign: async (argv) => (await import('./commands/reassign.js')).reassignCommand(argv),
  'elect-leaders': async (argv) => (await import('./commands/elect-leaders.js')).electLeadersCommand(argv),
  'delete-records': async (argv) => (await import('./commands/delete-records.js')).deleteRecordsCommand(argv),
  'consumer-service': async (argv) => (await import('./commands/consumer-service.js')).consumerServiceCommand(argv),
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
    console.error(`gregor: unknown command "${name}"${commandHint(name)}\n\n${mainUsage}`);
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

/** Kafka's script names, for users who type them: kafka-topics.sh is `gregor topics`. */
const KAFKA_SCRIPTS: Record<string, string> = {
  'kafka-topics': 'topics',
  'kafka-consumer-groups': 'groups',
  'kafka-configs': 'configs',
  'kafka-reassign-partitions': 'reassign',
  'kafka-leader-election': 'elect-leaders',
  'kafka-preferred-replica-election': 'elect-leaders',
  'kafka-delete-records': 'delete-records',
  'kafka-acls': 'acls',
  'kafka-console-producer': 'produce',
  'kafka-console-consumer': 'consume',
  'kafka-server-start': 'broker',
};

function commandHint(name: string): string {
  const script = KAFKA_SCRIPTS[name.replace(/\.sh$/, '')];
  if (script) return ` (kafka's ${name} is \`gregor ${script}\`)`;
  const near = closestName(name, Object.keys(COMMANDS));
  return near ? ` (did you mean "${near}"?)` : '';
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
