import { describe, expect, it } from 'vitest';
import { parseOffsetJson } from '../commands/delete-records.js';
import { parseElectionJson } from '../commands/elect-leaders.js';
import { parseHeaders } from '../commands/produce.js';
import { ongoingText } from '../commands/reassign.js';
import { UsageError } from '../usage-error.js';
import { formatPlan, parseBrokerList, parseReassignmentPlan, parseTopicsToMove } from './plan-json.js';

describe("Kafka's admin JSON files", () => {
  it('reads a reassignment plan with or without log_dirs, and writes it back as Kafka does', () => {
    const plan = parseReassignmentPlan('{"version":1,"partitions":[{"topic":"b","partition":1,"replicas":[3,1],"log_dirs":["any","any"]},{"topic":"a","partition":0,"replicas":[2]}]}');
    expect(plan).toEqual([{ topic: 'b', partition: 1, replicas: [3, 1] }, { topic: 'a', partition: 0, replicas: [2] }]);
    expect(formatPlan(plan)).toBe('{"version":1,"partitions":[{"topic":"a","partition":0,"replicas":[2],"log_dirs":["any"]},{"topic":"b","partition":1,"replicas":[3,1],"log_dirs":["any","any"]}]}');
    expect(parseReassignmentPlan('{"partitions":[]}')).toEqual([]);
  });

  it.each([
    ['{"version":2,"partitions":[]}', 'Not supported version'],
    ['{"version":1}', 'missing "partitions"'],
    ['{"partitions":[{"topic":"t","partition":0,"replicas":[1,1]}]}', 'duplicate entries'],
    ['{"partitions":[{"topic":"t","partition":0,"replicas":[1]},{"topic":"t","partition":0,"replicas":[2]}]}', 'duplicate topic partitions: t-0'],
    ['{"partitions":[{"topic":"t","partition":0,"replicas":[1,2],"log_dirs":["any"]}]}', 'different from size of log dirs'],
    ['{"partitions":[{"topic":"t","partition":0,"replicas":[1],"log_dirs":["/data/a"]}]}', 'AlterReplicaLogDirs'],
    ['{"partitions":[{"topic":"t","partition":0,"replicas":[]}]}', 'non-empty list'],
    ['not json', 'not valid JSON'],
  ])('refuses %s', (text, message) => {
    expect(() => parseReassignmentPlan(text)).toThrow(UsageError);
    expect(() => parseReassignmentPlan(text)).toThrow(message);
  });

  it('reads topics to move, broker lists, election and delete-records files, headers', () => {
    expect(parseTopicsToMove('{"topics":[{"topic":"a"},{"topic":"b"}],"version":1}')).toEqual(['a', 'b']);
    expect(() => parseTopicsToMove('{"topics":[{"topic":"a"},{"topic":"a"}]}')).toThrow('duplicate entries: a');
    expect(parseBrokerList('1, 2,3')).toEqual([1, 2, 3]);
    expect(() => parseBrokerList('1,1')).toThrow('duplicate entries: 1');
    expect(parseElectionJson('{"partitions":[{"topic":"foo","partition":1}]}', 'f')).toEqual([{ topic: 'foo', partition: 1 }]);
    expect(() => parseElectionJson('{"partitions":[{"topic":"foo","partition":1},{"topic":"foo","partition":1}]}', 'f')).toThrow('duplicate partitions: foo-1');
    expect(() => parseElectionJson('{}', 'f')).toThrow('missing "partitions"');
    expect(parseOffsetJson('{"partitions":[{"topic":"foo","partition":1,"offset":-1}],"version":1}', 'f')).toEqual([{ topic: 'foo', partition: 1, offset: -1 }]);
    expect(() => parseOffsetJson('{"partitions":[{"topic":"foo","partition":1,"offset":-2}]}', 'f')).toThrow(UsageError);
    expect(parseHeaders(['a=1', 'a=', 'b=x=y'])).toEqual([{ key: 'a', value: '1' }, { key: 'a', value: '' }, { key: 'b', value: 'x=y' }]);
    expect(() => parseHeaders(['novalue'])).toThrow(UsageError);
  });

  it('lists reassignments in progress as kafka-reassign-partitions --list', () => {
    expect(ongoingText([])).toBe('No partition reassignments found.');
    expect(ongoingText([{ topic: 't', partition: 0, replicas: [3, 1, 2], addingReplicas: [3], removingReplicas: [2] }])).toBe('Current partition reassignments:\nt-0: replicas: 3,1,2. adding: 3. removing: 2.');
  });
});
