import { describe, expect, it } from 'vitest';
import { parseConnectString, parseSrvr } from './zookeeper-status.js';

describe('ZooKeeper ensemble status', () => {
  it('parses connect strings with ports, IPv6, defaults and a chroot', () => {
    expect(parseConnectString('zk1:2181,zk2:2182/kafka')).toEqual({ servers: [{ host: 'zk1', port: 2181 }, { host: 'zk2', port: 2182 }], chroot: '/kafka' });
    expect(parseConnectString('[::1]:2183, zk3 ,')).toEqual({ servers: [{ host: '::1', port: 2183 }, { host: 'zk3', port: 2181 }], chroot: null });
    expect(parseConnectString('zk:2181/').chroot).toBeNull();
  });

  it('reads srvr\'s fields; no answer or no Mode is an error', () => {
    const answer = [
      'Zookeeper version: 3.8.0-5a02a05eddb59aee6ac762f7ea82e92a68eb9c0f, built on 2022-02-25 08:49 UTC',
      'Latency min/avg/max: 0/1.5/12',
      'Received: 20',
      'Sent: 19',
      'Connections: 3',
      'Outstanding: 0',
      'Zxid: 0x10000002a',
      'Mode: follower',
      'Node count: 42',
      '',
    ].join('\n');
    expect(parseSrvr({ host: 'h', port: 1 }, answer)).toEqual({
      host: 'h',
      port: 1,
      mode: 'follower',
      version: '3.8.0-5a02a05eddb59aee6ac762f7ea82e92a68eb9c0f',
      latencyAvgMs: 1.5,
      latencyMaxMs: 12,
      connections: 3,
      outstanding: 0,
      zxid: '0x10000002a',
      nodeCount: 42,
      error: null,
    });
    expect(parseSrvr({ host: 'h', port: 1 }, '')).toMatchObject({ mode: null, error: 'no answer (the server is down or unreachable)' });
    expect(parseSrvr({ host: 'h', port: 1 }, 'This ZooKeeper instance is not currently serving requests\n')).toMatchObject({ mode: null, error: 'This ZooKeeper instance is not currently serving requests' });
  });
});
