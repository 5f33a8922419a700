import { describe, expect, it } from 'vitest';
import { UsageError } from '../usage-error.js';
import { aclTarget, type AclTargetArgs } from './acls-target.js';

const refused = (a: AclTargetArgs) => {
  try {
    aclTarget(a, 'usage');
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error(`not refused: ${JSON.stringify(a)}`);
};

describe("gregor acls: the brokers or the authorizer on ZooKeeper (Kafka 2.4's AclCommandOptions.checkArgs)", () => {
  it('--bootstrap-server: the brokers, with --command-config', () => {
    expect(aclTarget({ 'bootstrap-server': 'h:9092', 'command-config': 'c.properties' }, 'usage')).toEqual({ kind: 'brokers', bootstrap: 'h:9092', commandConfig: 'c.properties' });
  });

  it("--authorizer-properties: ZooKeeper with Kafka 2.4's timeouts unless given; either ZooKeeper authorizer class", () => {
    expect(aclTarget({ 'authorizer-properties': ['zookeeper.connect=127.0.0.1:2181'] }, 'usage')).toEqual({
      kind: 'authorizer',
      zooKeeper: { connect: '127.0.0.1:2181', sessionTimeoutMs: 6000, connectionTimeoutMs: 6000 },
    });
    for (const authorizer of ['kafka.security.auth.SimpleAclAuthorizer', 'kafka.security.authorizer.AclAuthorizer']) {
      const target = aclTarget({ authorizer, 'authorizer-properties': ['zookeeper.connect=z:1/chroot', 'zookeeper.session.timeout.ms=9000'] }, 'usage');
      expect(target).toEqual({ kind: 'authorizer', zooKeeper: { connect: 'z:1/chroot', sessionTimeoutMs: 9000, connectionTimeoutMs: 9000 } });
    }
    // The authorizer.-prefixed settings win (AclAuthorizer.configure); zookeeper.connect is still required.
    const props = ['zookeeper.connect=a:1', 'authorizer.zookeeper.url=b:2', 'zookeeper.connection.timeout.ms=100', 'authorizer.zookeeper.connection.timeout.ms=200'];
    expect(aclTarget({ 'authorizer-properties': props }, 'usage')).toEqual({ kind: 'authorizer', zooKeeper: { connect: 'b:2', sessionTimeoutMs: 6000, connectionTimeoutMs: 200 } });
  });

  it("refuses what Kafka refuses, with Kafka's messages", () => {
    expect(refused({})).toBe('Missing required argument "[authorizer-properties]"');
    expect(refused({ 'bootstrap-server': 'h:9092', authorizer: 'kafka.security.authorizer.AclAuthorizer' })).toBe('Only one of --bootstrap-server or --authorizer must be specified');
    expect(refused({ 'bootstrap-server': 'h:9092', 'authorizer-properties': ['zookeeper.connect=z:1'] })).toBe('The --authorizer-properties option can only be used with --authorizer option');
    expect(refused({ 'command-config': 'c.properties', 'authorizer-properties': ['zookeeper.connect=z:1'] })).toBe('The --command-config option can only be used with --bootstrap-server option');
    expect(refused({ 'authorizer-properties': ['zookeeper.session.timeout.ms=1000'] })).toBe('Missing required configuration "zookeeper.connect" which has no default value.');
    expect(refused({ 'authorizer-properties': ['zookeeper.connect'] })).toBe('Missing value for key zookeeper.connect');
    expect(refused({ 'authorizer-properties': ['zookeeper.connect=z:1', 'zookeeper.session.timeout.ms=soon'] })).toBe('Invalid value soon for configuration zookeeper.session.timeout.ms: Not a number of type INT');
    expect(refused({ authorizer: 'com.example.RangerAuthorizer', 'authorizer-properties': ['zookeeper.connect=z:1'] })).toBe(
      'Authorizer com.example.RangerAuthorizer is not supported: use kafka.security.authorizer.AclAuthorizer or kafka.security.auth.SimpleAclAuthorizer (ACLs in ZooKeeper)',
    );
  });
});
