import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../run-cli.js';
import { UsageError } from '../usage-error.js';
import { formatConfigEntry, parseConfigsToAdd, parseConfigsToDelete } from './configs.js';

describe('configs', () => {
  let errors: string[];
  beforeEach(() => {
    errors = [];
    vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void errors.push(a.join(' ')));
  });
  afterEach(() => vi.restoreAllMocks());

  it("parses kafka-configs' --add-config and --delete-config", () => {
    expect(parseConfigsToAdd('retention.ms=1000, cleanup.policy=[compact,delete],x= y ')).toEqual({ 'retention.ms': '1000', 'cleanup.policy': 'compact,delete', x: 'y' });
    expect(parseConfigsToAdd('ssl.endpoint.identification.algorithm=')).toEqual({ 'ssl.endpoint.identification.algorithm': '' });
    expect(() => parseConfigsToAdd('a=1,b')).toThrow(UsageError);
    expect(parseConfigsToDelete(['a,b', ' c '])).toEqual(['a', 'b', 'c']);
  });

  it('prints entries as kafka-configs --describe does', () => {
    expect(
      formatConfigEntry({ name: 'retention.ms', value: '1000', source: 'DYNAMIC_TOPIC_CONFIG', readOnly: false, sensitive: false, synonyms: [{ name: 'retention.ms', value: '1000', source: 'DYNAMIC_TOPIC_CONFIG' }, { name: 'log.retention.hours', value: '168', source: 'DEFAULT_CONFIG' }] }),
    ).toBe('  retention.ms=1000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=1000, DEFAULT_CONFIG:log.retention.hours=168}');
  });

  it('refuses unclear entities before connecting (exit 2)', async () => {
    expect(await runCli(['configs', '--describe', '--entity-type', 'topcs', '--entity-name', 't'])).toBe(2);
    expect(errors.at(-1)).toContain('did you mean "topics"?');
    expect(await runCli(['configs', '--describe', '--entity-type', 'users', '--entity-name', 'u'])).toBe(2);
    expect(await runCli(['configs', '--alter', '--entity-type', 'topics', '--add-config', 'a=b'])).toBe(2);
    expect(errors.at(-1)).toContain('an entity name must be specified with --alter of topics');
    expect(await runCli(['configs', '--alter', '--entity-type', 'brokers', '--entity-name', 'x', '--add-config', 'a=b'])).toBe(2);
    expect(await runCli(['configs', '--alter', '--topic', 't'])).toBe(2);
    expect(await runCli(['configs', '--describe', '--topic', 't', '--broker', '1'])).toBe(2);
    expect(await runCli(['configs', '--describe', '--entity-type', 'topics', '--entity-default'])).toBe(2);
    expect(await runCli(['configs', '--alter', '--topic', 't', '--add-config', 'a=1', '--delete-config', 'a'])).toBe(2);
  });
});
