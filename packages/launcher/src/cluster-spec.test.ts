import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '@gregor/common';
import { clusterSpecFrom, defaultClusterSpec, readClusterFile } from './cluster-spec.js';
import { localBrokerProperties, renderProperties } from './server-properties.js';

const dir = mkdtempSync(join(tmpdir(), 'gregor-spec-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('defaultClusterSpec', () => {
  it('lays out ZooKeeper on 2181.. and brokers 1..N on 9092.. with HTTP on 8780..', () => {
    const spec = defaultClusterSpec();
    expect(spec.zookeeper.nodes).toEqual([
      { clientPort: 2181, peerPort: 2888, electionPort: 3888 },
      { clientPort: 2182, peerPort: 2889, electionPort: 3889 },
      { clientPort: 2183, peerPort: 2890, electionPort: 3890 },
    ]);
    expect(spec.brokers.map((b) => [b.id, b.host, b.port, b.httpPort])).toEqual([
      [1, '127.0.0.1', 9092, 8780],
      [2, '127.0.0.1', 9093, 8781],
      [3, '127.0.0.1', 9094, 8782],
    ]);
    expect(defaultClusterSpec({ brokers: 5, zookeepers: 1 }).brokers.at(-1)!.port).toBe(9096);
    expect(spec.brokers.map((b) => b.internalPort)).toEqual([19092, 19093, 19094]);
    expect(() => defaultClusterSpec({ brokers: 0 })).toThrow(ConfigError);
  });
});

describe('readClusterFile', () => {
  it('reads YAML with a node count, shared and per-broker properties', () => {
    const file = join(dir, 'cluster.yaml');
    writeFileSync(
      file,
      [
        'zookeeper:',
        '  nodes: 2',
        '  clientPort: 12181',
        '  peerPort: 12888',
        '  electionPort: 13888',
        '  tickTime: 500',
        'properties:',
        '  num.partitions: 4',
        'brokers:',
        '  - id: 7',
        '    port: 19092',
        '    httpPort: 18081',
        '    properties: { broker.rack: a, num.partitions: 2 }',
        '  - id: 8',
        '    host: localhost',
        '    port: 19093',
      ].join('\n'),
    );
    const spec = readClusterFile(file);
    expect(spec.zookeeper).toEqual({
      tickTime: 500,
      nodes: [
        { clientPort: 12181, peerPort: 12888, electionPort: 13888 },
        { clientPort: 12182, peerPort: 12889, electionPort: 13889 },
      ],
    });
    expect(spec.properties).toEqual({ 'num.partitions': '4' });
    expect(spec.brokers).toEqual([
      { id: 7, host: '127.0.0.1', port: 19092, httpPort: 18081, properties: { 'broker.rack': 'a', 'num.partitions': '2' } },
      { id: 8, host: 'localhost', port: 19093, httpPort: -1, properties: {} },
    ]);
  });

  it('reads JSON with explicit ZooKeeper ports', () => {
    const file = join(dir, 'cluster.json');
    writeFileSync(file, JSON.stringify({ zookeeper: { nodes: [{ clientPort: 1, peerPort: 2, electionPort: 3 }] }, brokers: [{ port: 4, httpPort: 5 }] }));
    const spec = readClusterFile(file);
    expect(spec.zookeeper.nodes).toEqual([{ clientPort: 1, peerPort: 2, electionPort: 3 }]);
    expect(spec.zookeeper.tickTime).toBe(2000);
    expect(spec.brokers[0]).toMatchObject({ id: 1, port: 4, httpPort: 5 });
  });

  it('rejects broken files with the place of the mistake', () => {
    const bad = (raw: unknown) => () => clusterSpecFrom(raw, 'c.yaml');
    expect(bad({ brokers: [] })).toThrow(/c.yaml: brokers must be a non-empty list/);
    expect(bad({ brokers: [{ id: 1, port: 9092 }, { id: 1, port: 9093 }] })).toThrow(/broker id 1 appears twice/);
    expect(bad({ brokers: [{ port: 2181 }] })).toThrow(/port 2181 is used twice/);
    expect(bad({ brokers: [{ port: 70000 }] })).toThrow(/brokers\[0\].port must be a port/);
    expect(bad({ brokers: [{ id: 'x', port: 1 }] })).toThrow(/brokers\[0\].id must be an integer/);
    expect(bad({ brokers: [{ port: 1, properties: { a: { b: 1 } } }] })).toThrow(/properties.a must be a scalar/);
    expect(() => readClusterFile(join(dir, 'missing.yaml'))).toThrow(/cannot read cluster file/);
    const broken = join(dir, 'broken.yaml');
    writeFileSync(broken, 'brokers: [\n');
    expect(() => readClusterFile(broken)).toThrow(/not valid YAML/);
  });
});

describe('server properties', () => {
  it('puts identity first, then local defaults, then shared and per-broker properties', () => {
    const props = localBrokerProperties(
      { id: 2, host: '127.0.0.1', port: 9093, httpPort: 8781, properties: { 'zookeeper.session.timeout.ms': '4000' } },
      { zookeeperConnect: '127.0.0.1:2181', logDir: '/data/b2', clusterSize: 2, common: { 'num.partitions': '3', 'zookeeper.session.timeout.ms': '9000' } },
    );
    expect(props.get('broker.id')).toBe('2');
    expect(props.get('listeners')).toBe('PLAINTEXT://127.0.0.1:9093');
    expect(props.get('advertised.listeners')).toBe('PLAINTEXT://127.0.0.1:9093');
    expect(props.get('log.dirs')).toBe('/data/b2');
    expect(props.get('zookeeper.connect')).toBe('127.0.0.1:2181');
    expect(props.get('http.port')).toBe('8781');
    expect(props.get('offsets.topic.replication.factor')).toBe('2');
    expect(props.get('num.partitions')).toBe('3');
    expect(props.get('zookeeper.session.timeout.ms')).toBe('4000');
  });

  it('an internal port gives the broker a separate INTERNAL inter-broker listener, unless the cluster file sets listeners', () => {
    const ctx = { zookeeperConnect: '127.0.0.1:2181', logDir: '/d', clusterSize: 3, common: {} };
    const props = localBrokerProperties({ id: 1, host: '127.0.0.1', port: 9092, httpPort: 8780, internalPort: 19092, properties: {} }, ctx);
    expect(props.get('listeners')).toBe('PLAINTEXT://127.0.0.1:9092,INTERNAL://127.0.0.1:19092');
    expect(props.get('advertised.listeners')).toBe('PLAINTEXT://127.0.0.1:9092,INTERNAL://127.0.0.1:19092');
    expect(props.get('listener.security.protocol.map')).toBe('PLAINTEXT:PLAINTEXT,INTERNAL:PLAINTEXT');
    expect(props.get('inter.broker.listener.name')).toBe('INTERNAL');
    const own = localBrokerProperties({ id: 1, host: '127.0.0.1', port: 9092, httpPort: 8780, internalPort: 19092, properties: { listeners: 'PLAINTEXT://127.0.0.1:9092' } }, ctx);
    expect(own.get('listeners')).toBe('PLAINTEXT://127.0.0.1:9092');
    expect(own.has('inter.broker.listener.name')).toBe(false);
    const file = clusterSpecFrom({ zookeeper: { nodes: 1 }, brokers: [{ port: 9092, internalPort: 19092 }, { port: 9093 }] }, 'f');
    expect(file.brokers.map((b) => b.internalPort)).toEqual([19092, undefined]);
    expect(() => clusterSpecFrom({ zookeeper: { nodes: 1 }, brokers: [{ port: 9092 }, { port: 9093, internalPort: 9092 }] }, 'f')).toThrow(/port 9092 is used twice/);
  });

  it('renders Java properties with escapes', () => {
    const text = renderProperties(new Map([['a', 'x=y'], ['k:ey', ' lead\\tab\tnl\n']]), 'header');
    expect(text).toBe('# header\na=x=y\nk\\:ey=\\ lead\\\\tab\\tnl\\n\n');
  });
});
