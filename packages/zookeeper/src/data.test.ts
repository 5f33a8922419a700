import { describe, expect, it } from 'vitest';
import { CorruptDataError } from '@gregor/common';
import {
  decodeBrokerRegistration,
  decodeClusterId,
  decodeConsumerOffset,
  decodeConsumerRegistration,
  decodeController,
  decodeControllerEpoch,
  decodeIsrChangeNotification,
  decodePartitionState,
  decodeReassignment,
  decodeTopicAssignment,
  decodeConfigChangeNotification,
  decodeEntityConfig,
  decodeTopicConfig,
  encodeBrokerRegistration,
  encodeClusterId,
  encodeConsumerOffset,
  encodeConsumerRegistration,
  encodeController,
  encodeControllerEpoch,
  encodeIsrChangeNotification,
  encodePartitionState,
  encodeTopicAssignment,
  encodeTopicConfig,
  generateClusterId,
} from './data.js';
import * as paths from './paths.js';

describe('znode data (Kafka 2.4 JSON)', () => {
  it('broker registration v4 is byte-for-byte what Kafka writes, and decodes back', () => {
    const bytes = encodeBrokerRegistration({
      endpoints: [{ listener: 'PLAINTEXT', host: '10.0.0.1', port: 9092, securityProtocol: 'PLAINTEXT' }],
      jmxPort: -1,
      timestamp: 1588888888888,
      rack: null,
    });
    expect(bytes.toString()).toBe(
      '{"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"endpoints":["PLAINTEXT://10.0.0.1:9092"],"jmx_port":-1,"host":"10.0.0.1","timestamp":"1588888888888","port":9092,"version":4}',
    );
    expect(decodeBrokerRegistration(1, bytes)).toEqual({
      brokerId: 1,
      endpoints: [{ listener: 'PLAINTEXT', host: '10.0.0.1', port: 9092, securityProtocol: 'PLAINTEXT' }],
      jmxPort: -1,
      timestamp: 1588888888888,
      rack: null,
    });
  });

  it('broker registration: no PLAINTEXT listener → host null, port -1; IPv6 and custom listeners; old versions', () => {
    const bytes = encodeBrokerRegistration({
      endpoints: [{ listener: 'INTERNAL', host: '::1', port: 9093, securityProtocol: 'SSL' }],
      jmxPort: 9999,
      timestamp: 5,
      rack: 'r1',
    });
    const obj = JSON.parse(bytes.toString());
    expect(obj).toMatchObject({ host: null, port: -1, rack: 'r1', listener_security_protocol_map: { INTERNAL: 'SSL' } });
    const v2 = '{"jmx_port":-1,"timestamp":"1","endpoints":["PLAINTEXT://[::1]:9092"],"host":"::1","version":2,"port":9092}';
    expect(decodeBrokerRegistration(3, v2).endpoints).toEqual([{ listener: 'PLAINTEXT', host: '::1', port: 9092, securityProtocol: 'PLAINTEXT' }]);
    expect(decodeBrokerRegistration(3, '{"version":1,"host":"h","port":1,"jmx_port":-1,"timestamp":"2"}').endpoints[0]).toMatchObject({ host: 'h', port: 1 });
    expect(() => decodeBrokerRegistration(3, '{"version":4,"endpoints":["garbage"]}')).toThrow(CorruptDataError);
    expect(() => decodeBrokerRegistration(3, 'not json')).toThrow(/brokers\/ids\/3: not JSON/);
  });

  it('broker registration carries gregor_admin_url only when the broker runs an HTTP admin', () => {
    const base = { endpoints: [{ listener: 'PLAINTEXT', host: 'h', port: 1, securityProtocol: 'PLAINTEXT' }], jmxPort: -1, timestamp: 5, rack: null };
    const bytes = encodeBrokerRegistration({ ...base, adminUrl: 'http://h:8780' });
    expect(JSON.parse(bytes.toString()).gregor_admin_url).toBe('http://h:8780');
    expect(decodeBrokerRegistration(1, bytes).adminUrl).toBe('http://h:8780');
    expect(JSON.parse(encodeBrokerRegistration({ ...base, adminUrl: null }).toString())).not.toHaveProperty('gregor_admin_url');
    expect(decodeBrokerRegistration(1, encodeBrokerRegistration(base))).not.toHaveProperty('adminUrl');
  });

  it('topic assignment: writes v2, reads v1 and v2', () => {
    const assignment = new Map([
      [1, [2, 3, 1]],
      [0, [1, 2, 3]],
    ]);
    expect(encodeTopicAssignment(assignment).toString()).toBe(
      '{"version":2,"partitions":{"0":[1,2,3],"1":[2,3,1]},"adding_replicas":{},"removing_replicas":{}}',
    );
    const v1 = decodeTopicAssignment('t', '{"version":1,"partitions":{"0":[1,2,3],"1":[2,3,1]}}');
    expect(v1.partitions).toEqual(new Map([[0, [1, 2, 3]], [1, [2, 3, 1]]]));
    expect(v1.addingReplicas.size).toBe(0);
    const v2 = decodeTopicAssignment('t', '{"version":2,"partitions":{"0":[4,5,6,1]},"adding_replicas":{"0":[4]},"removing_replicas":{"0":[1]}}');
    expect(v2.addingReplicas.get(0)).toEqual([4]);
    expect(v2.removingReplicas.get(0)).toEqual([1]);
    // A moving partition (KIP-455: RS = target ++ original, adding = RS - original, removing = RS - target), as Kafka 2.4 writes it.
    const moving = {
      partitions: new Map([[0, [3, 1, 2]], [1, [1, 2]]]),
      addingReplicas: new Map([[0, [3]], [1, []]]),
      removingReplicas: new Map([[0, [2]]]),
    };
    const json = '{"version":2,"partitions":{"0":[3,1,2],"1":[1,2]},"adding_replicas":{"0":[3]},"removing_replicas":{"0":[2]}}';
    expect(encodeTopicAssignment(moving).toString()).toBe(json);
    expect(decodeTopicAssignment('t', json)).toEqual({ ...moving, addingReplicas: new Map([[0, [3]]]) });
    expect(() => decodeTopicAssignment('t', '{"version":2,"partitions":{"0":["a"]}}')).toThrow(/partitions\.0/);
    expect(() => decodeTopicAssignment('t', '{"version":3,"partitions":{}}')).toThrow(/unsupported version 3/);
  });

  it('partition state, controller, controller epoch, cluster id, topic config', () => {
    const state = { leader: 1, leaderEpoch: 3, isr: [1, 2, 3], controllerEpoch: 5 };
    expect(encodePartitionState(state).toString()).toBe('{"controller_epoch":5,"leader":1,"version":1,"leader_epoch":3,"isr":[1,2,3]}');
    expect(decodePartitionState('t', 0, encodePartitionState(state))).toEqual(state);
    expect(() => decodePartitionState('t', 0, '{"version":1,"leader":1}')).toThrow(/state: "leader_epoch" must be an integer/);

    expect(encodeController(2, 1588888888888).toString()).toBe('{"version":1,"brokerid":2,"timestamp":"1588888888888"}');
    expect(decodeController(encodeController(2, 7))).toEqual({ brokerId: 2, timestamp: 7 });
    expect(decodeController('3')).toEqual({ brokerId: 3, timestamp: 0 });

    expect(encodeControllerEpoch(7).toString()).toBe('7');
    expect(decodeControllerEpoch('7')).toBe(7);
    expect(() => decodeControllerEpoch('seven')).toThrow(CorruptDataError);

    const id = generateClusterId();
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(encodeClusterId(id).toString()).toBe(`{"version":"1","id":"${id}"}`);
    expect(decodeClusterId(encodeClusterId(id))).toBe(id);

    expect(encodeTopicConfig({ 'retention.ms': '86400000' }).toString()).toBe('{"version":1,"config":{"retention.ms":"86400000"}}');
    expect(decodeTopicConfig('t', '{"version":1,"config":{"retention.ms":"1"}}')).toEqual({ 'retention.ms': '1' });
    expect(() => decodeTopicConfig('t', '{"version":1,"config":{"retention.ms":1}}')).toThrow(/must be a string/);
    expect(() => decodeEntityConfig('/config/brokers/<default>', '{"version":1}')).toThrow(/\/config\/brokers\/<default>.*"config" must be an object/);
    // /config/changes: version 2 carries the entity path; version 1 (entity_type + entity_name) is still read
    expect(decodeConfigChangeNotification('{"version":2,"entity_path":"brokers/<default>"}')).toBe('brokers/<default>');
    expect(decodeConfigChangeNotification('{"version":1,"entity_type":"topics","entity_name":"t"}')).toBe('topics/t');
    expect(() => decodeConfigChangeNotification('{"version":3}')).toThrow(/unsupported version 3/);
  });

  it('notifications, reassignment, old consumer nodes', () => {
    const partitions = [{ topic: 't', partition: 0 }];
    expect(encodeIsrChangeNotification(partitions).toString()).toBe('{"version":1,"partitions":[{"topic":"t","partition":0}]}');
    expect(decodeIsrChangeNotification(encodeIsrChangeNotification(partitions))).toEqual(partitions);
    expect(decodeReassignment('{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2,3]}]}')).toEqual([{ topic: 't', partition: 0, replicas: [1, 2, 3] }]);

    const registration = { subscription: { t: 2 }, pattern: 'static' as const, timestamp: 1588888888888 };
    expect(encodeConsumerRegistration(registration).toString()).toBe('{"version":1,"subscription":{"t":2},"pattern":"static","timestamp":"1588888888888"}');
    expect(decodeConsumerRegistration(encodeConsumerRegistration(registration))).toEqual(registration);
    expect(() => decodeConsumerRegistration('{"version":1,"subscription":{"t":1},"pattern":"odd"}')).toThrow(/unknown pattern/);
    expect(encodeConsumerOffset(15230n).toString()).toBe('15230');
    expect(decodeConsumerOffset('15230')).toBe(15230n);
  });
});

describe('znode paths', () => {
  it('builds Kafka paths and rejects unsafe segments', () => {
    expect(paths.brokerPath(1)).toBe('/brokers/ids/1');
    expect(paths.partitionStatePath('orders', 3)).toBe('/brokers/topics/orders/partitions/3/state');
    expect(paths.configTopicsPath('orders')).toBe('/config/topics/orders');
    expect(paths.deleteTopicsPath('orders')).toBe('/admin/delete_topics/orders');
    expect(paths.configBrokerPath(2)).toBe('/config/brokers/2');
    expect(paths.configBrokerPath('<default>')).toBe('/config/brokers/<default>');
    expect(paths.brokerConfigEntityPath('<default>')).toBe('brokers/<default>');
    expect(() => paths.configBrokerPath(-1)).toThrow(/invalid broker config entity/);
    expect(paths.consumerIdPath('g', 'g_host-1-abc')).toBe('/consumers/g/ids/g_host-1-abc');
    expect(paths.consumerOwnerPath('g', 't', 0)).toBe('/consumers/g/owners/t/0');
    expect(paths.consumerOffsetPath('g', 't', 0)).toBe('/consumers/g/offsets/t/0');
    expect(paths.persistentPaths).toContain('/admin/delete_topics');
    expect(() => paths.topicPath('a/b')).toThrow(/invalid topic/);
    expect(() => paths.topicPath('')).toThrow(/invalid topic/);
  });
});
