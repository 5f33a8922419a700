import { describe, expect, it } from 'vitest';
import { formatMembers, formatOffsets, formatResetPlan, formatState, lagOf } from './group-tables.js';

describe("kafka-consumer-groups' tables", () => {
  it('pads columns to Kafka’s widths and prints "-" for what is unknown', () => {
    const text = formatOffsets([
      { group: 'g', topic: 't', partition: 0, current: 5, logEnd: 9, lag: lagOf(5, 9), consumerId: 'rdkafka-1234567890abcdef', host: '/127.0.0.1', clientId: 'rdkafka' },
      { group: 'g', topic: 't', partition: 1, current: null, logEnd: 3, lag: lagOf(null, 3), consumerId: null, host: null, clientId: null },
    ]).split('\n');
    expect(text[0]).toBe('');
    expect(text[1]).toBe('GROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID              HOST            CLIENT-ID');
    expect(text[2]).toBe('g               t               0          5               9               4               rdkafka-1234567890abcdef /127.0.0.1      rdkafka');
    expect(text[3]).toBe('g               t               1          -               3               -               -                        -               -');
  });

  it('members (verbose assignment), state and the reset plan', () => {
    const members = formatMembers([{ group: 'g', consumerId: 'c1', groupInstanceId: '', host: '/h', clientId: 'k', partitions: [{ topic: 'b', partition: 1 }, { topic: 'a', partition: 2 }, { topic: 'a', partition: 0 }] }], true).split('\n');
    expect(members[1]).toBe('GROUP           CONSUMER-ID     HOST            CLIENT-ID       #PARTITIONS     ASSIGNMENT');
    expect(members[2]).toBe('g               c1              /h              k               3               a(0,2), b(1)');
    const state = formatState({ group: 'g', coordinator: '127.0.0.1:9092 (1)', assignmentStrategy: 'range', state: 'Stable', members: 2 }).split('\n');
    expect(state[1]).toBe('GROUP                     COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE           #MEMBERS');
    expect(state[2]).toBe('g                         127.0.0.1:9092 (1)        range                Stable          2');
    expect(formatResetPlan('g', [{ topic: 't', partition: 0, offset: 7 }]).split('\n')[2]).toBe(`${'g'.padEnd(30)} ${'t'.padEnd(30)} ${'0'.padEnd(10)} ${'7'.padEnd(15)}`);
  });
});
