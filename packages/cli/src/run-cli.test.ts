import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { formatRecord } from './commands/consume.js';
import { parseAcks } from './commands/produce.js';
import { actionOf, keyValues, unescapeSeparator } from './args.js';
import { parseReplicaAssignment } from './commands/topics.js';
import { runCli } from './run-cli.js';
import { UsageError } from './usage-error.js';

let errors: string[];
let logs: string[];
beforeEach(() => {
  errors = [];
  logs = [];
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void errors.push(a.join(' ')));
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void logs.push(a.join(' ')));
});
afterEach(() => vi.restoreAllMocks());

describe('runCli exit codes', () => {
  it('2 for usage mistakes, with the command usage', async () => {
    expect(await runCli([])).toBe(2);
    expect(await runCli(['frobnicate'])).toBe(2);
    expect(errors.join('\n')).toContain('unknown command "frobnicate"');
    expect(await runCli(['produce'])).toBe(2);
    expect(errors.at(-1)).toContain('--topic is required');
    expect(errors.at(-1)).toContain('gregor produce --topic T');
    expect(await runCli(['consume', '--topic', 't', '--bogus'])).toBe(2);
    expect(await runCli(['consume', '--topic', 't', '--offset', '5'])).toBe(2);
    expect(errors.at(-1)).toContain('--offset N needs --partition');
    expect(await runCli(['consume', '--topic', 't', '--from-beginning', '--offset', 'latest'])).toBe(2);
    expect(await runCli(['consume', '--topic', 't', '--group', 'g', '--offset', '3'])).toBe(2);
    expect(await runCli(['consume', '--topic', 't', '--group', 'g', '--streams', '2'])).toBe(2);
    expect(await runCli(['produce', '--topic', 't', '--acks', '2'])).toBe(2);
    expect(await runCli(['produce', '--topic', 't', '--compression', 'brotli'])).toBe(2);
    expect(errors.at(-1)).toContain('--compression must be one of none, gzip, snappy, lz4, zstd');
    expect(await runCli(['topics', 'create', '--topic', 't', '--partitions', 'x'])).toBe(2);
    expect(await runCli(['topics', 'frob'])).toBe(2);
    expect(await runCli(['cluster'])).toBe(2);
    expect(await runCli(['cluster', 'kill'])).toBe(2);
    expect(await runCli(['cluster', 'up', '--config', 'a.yaml', '--brokers', '2'])).toBe(2);
    expect(await runCli(['broker', '--nope'])).toBe(2);
  });

  it('"did you mean" for misspelled commands, actions and flags (exit 2)', async () => {
    expect(await runCli(['tpoics', 'list'])).toBe(2);
    expect(errors.at(-1)).toContain('unknown command "tpoics" (did you mean "topics"?)');
    expect(await runCli(['kafka-topics.sh', '--list'])).toBe(2);
    expect(errors.at(-1)).toContain('`gregor topics`');
    expect(await runCli(['topics', '--create', '--topic', 't', '--partitons', '3'])).toBe(2);
    expect(errors.at(-1)).toContain('unknown option --partitons (did you mean --partitions?)');
    expect(await runCli(['topics', 'craete', '--topic', 't'])).toBe(2);
    expect(errors.at(-1)).toContain('unknown action "craete" (did you mean "create"?)');
    expect(await runCli(['topics', '--create', '--delete', '--topic', 't'])).toBe(2);
    expect(errors.at(-1)).toContain('give one action');
    expect(await runCli(['topics', '--topic', 't'])).toBe(2);
    expect(errors.at(-1)).toContain('missing action');
    expect(await runCli(['topics', '--alter', '--topic', 't', '--config', 'a=b'])).toBe(2);
    expect(errors.at(-1)).toContain('gregor configs --alter');
    expect(await runCli(['topics', '--create', '--topic', 't', '--replica-assignment', '1:1'])).toBe(2);
    expect(await runCli(['broker', '--confg', 'x'])).toBe(2);
    expect(errors.at(-1)).toContain('did you mean --config?');
  });

  it('0 for --help everywhere and version', async () => {
    for (const argv of [['--help'], ['cluster', '--help'], ['topics', '-h'], ['produce', '--help'], ['consume', '--help'], ['broker', '--help'], ['version']]) {
      expect(await runCli(argv)).toBe(0);
    }
    expect(logs.at(-1)).toMatch(/^gregor \d+\.\d+\.\d+ \(node v/);
  });

  it('1 with a readable message when nothing listens', async () => {
    expect(await runCli(['topics', 'list', '--bootstrap-server', '127.0.0.1:1'])).toBe(1);
    expect(errors.at(-1)).toMatch(/gregor topics: error: .*127\.0\.0\.1:1/);
    expect(await runCli(['cluster', 'status', '--dir', '/nonexistent/gregor'])).toBe(1);
    expect(errors.at(-1)).toContain('no cluster in /nonexistent/gregor');
  });
});

describe('helpers', () => {
  it('formats records as text or JSON lines', () => {
    const r = { topic: 't', partition: 1, offset: 7, timestamp: 1000, key: Buffer.from('k'), value: Buffer.from('v'), headers: [{ key: 'h', value: null }] };
    expect(formatRecord(r, 'text', false, '\t')).toBe('v');
    expect(formatRecord(r, 'text', true, '=')).toBe('k=v');
    expect(formatRecord({ ...r, key: null, value: null }, 'text', true, '\t')).toBe('null\tnull');
    expect(JSON.parse(formatRecord(r, 'json', false, '\t'))).toEqual({ topic: 't', partition: 1, offset: 7, timestamp: 1000, key: 'k', value: 'v', headers: [{ key: 'h', value: null }] });
  });

  it('parses acks, separators and key=value pairs', () => {
    expect([parseAcks(undefined), parseAcks('all'), parseAcks('-1'), parseAcks('1'), parseAcks('0')]).toEqual([-1, -1, -1, 1, 0]);
    expect(() => parseAcks('x')).toThrow(UsageError);
    expect(unescapeSeparator('\\t')).toBe('\t');
    expect(unescapeSeparator('a\\\\b')).toBe('a\\b');
    expect(keyValues(['a=1', 'b=x=y'], 'config', '')).toEqual({ a: '1', b: 'x=y' });
    expect(() => keyValues(['=1'], 'config', '')).toThrow(UsageError);
  });

  it('takes an action as a subcommand or as a Kafka flag, not both different', () => {
    const actions = ['create', 'list'] as const;
    expect(actionOf(['create', 'x'], {}, actions, '')).toEqual({ action: 'create', rest: ['x'] });
    expect(actionOf(['x'], { list: true }, actions, '')).toEqual({ action: 'list', rest: ['x'] });
    expect(actionOf(['list'], { list: true }, actions, '')).toEqual({ action: 'list', rest: [] });
    expect(() => actionOf(['create'], { list: true }, actions, '')).toThrow(/give one action/);
  });

  it('parses kafka-topics --replica-assignment', () => {
    expect([...parseReplicaAssignment('1:2,2:3, 3:1')]).toEqual([[0, [1, 2]], [1, [2, 3]], [2, [3, 1]]]);
    expect(() => parseReplicaAssignment('1:x')).toThrow(UsageError);
    expect(() => parseReplicaAssignment('1:1')).toThrow(/twice/);
  });
});
