import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../run-cli.js';

let errors: string[];
beforeEach(() => {
  errors = [];
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void errors.push(a.join(' ')));
  vi.spyOn(console, 'log').mockImplementation(() => {});
});
afterEach(() => vi.restoreAllMocks());

describe('consume --group, groups, consumer-service: command-line mistakes exit 2 before any connection', () => {
  it.each([
    [['consume', '--topic', 't', '--group', 'g', '--blacklist', 'x'], '--blacklist applies to the ZooKeeper connector'],
    [['consume', '--group', 'g'], 'exactly one of --topic and --whitelist'],
    [['consume', '--group', 'g', '--topic', 't', '--consumer-property', 'auto.offset.reset=none'], 'auto.offset.reset must be earliest, latest, smallest or largest'],
    [['consume', '--group', 'g', '--topic', 't', '--consumer-property', 'partition.assignment.strategy=sticky'], 'range or roundrobin'],
    [['consume', '--topic', 't', '--zookeeper', 'h:1'], '--group is required'],
    [['consume', '--group', 'g', '--zookeeper', 'h:1'], 'exactly one of --topic, --whitelist, --blacklist'],
    [['consume', '--group', 'g', '--zookeeper', 'h:1', '--topic', 't', '--whitelist', 'x'], 'exactly one of --topic, --whitelist, --blacklist'],
    [['consume', '--group', 'g', '--zookeeper', 'h:1', '--topic', 't', '--partition', '0'], '--partition and --offset do not apply to a group'],
    [['consume', '--group', 'g', '--zookeeper', 'h:1', '--topic', 't', '--streams', '0'], '--streams must be between 1 and 1000'],
    [['consume', '--group', 'g', '--zookeeper', 'h:1', '--topic', 't', '--consumer-property', 'novalue'], '--consumer-property takes key=value'],
    [['consume', '--topic', 't', '--streams', '2'], '--streams needs --group'],
    [['groups'], 'missing action'],
    [['groups', 'describe'], 'describe needs --group G'],
    [['groups', '--reset-offsets', '--group', 'g', '--to-earliest'], 'reset scope'],
    [['groups', '--reset-offsets', '--group', 'g', '--all-topics'], '--reset-offsets needs one of'],
    [['groups', '--reset-offsets', '--group', 'g', '--all-topics', '--to-latest', '--execute', '--dry-run'], 'one of --execute and --dry-run'],
    [['groups', '--list', '--members'], '--members, --offsets and --verbose apply to describe'],
    [['groups', '--describe', '--group', 'g', '--members', '--state'], 'at most one of'],
    [['groups', 'frob'], 'unknown action "frob"'],
    [['consumer-service'], '--config is required'],
  ])('%j', async (argv, message) => {
    expect(await runCli(argv)).toBe(2);
    expect(errors.join('\n')).toContain(message);
  });

  it('an invalid consumer setting exits 1 with its name', async () => {
    const code = await runCli(['consume', '--group', 'g', '--zookeeper', 'h:1', '--topic', 't', '--consumer-property', 'auto.offset.reset=beginning']);
    expect(code).toBe(1);
    expect(errors.join('\n')).toContain('"auto.offset.reset" must be one of smallest, largest, earliest, latest');
  });
});
