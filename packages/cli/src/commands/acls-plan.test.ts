import { describe, expect, it } from 'vitest';
import { UsageError } from '../usage-error.js';
import { planAcls, type AclArgs, type AclPlan } from './acls-plan.js';
import { aclTarget } from './acls-target.js';

/** A plan's resources as `TYPE:PATTERN:name ALLOW|DENY principal@host OPERATION` lines, sorted. */
function lines(plan: AclPlan): string[] {
  return plan.resources
    .flatMap(({ filter, entries }) =>
      entries.length === 0
        ? [`${filter.resourceType}:${filter.patternType}:${filter.name} (all)`]
        : entries.map((e) => `${filter.resourceType}:${filter.patternType}:${filter.name} ${e.permissionType} ${e.principal}@${e.host} ${e.operation}`),
    )
    .sort();
}

const plan = (a: AclArgs) => planAcls(a, 'usage');
/** The UsageError's message of a command line that `check` refuses. */
function refusedBy<A>(check: (a: A, usage: string) => unknown): (a: A) => string {
  return (a) => {
    try {
      check(a, 'usage');
    } catch (error) {
      expect(error).toBeInstanceOf(UsageError);
      return (error as Error).message;
    }
    throw new Error(`not refused: ${JSON.stringify(a)}`);
  };
}
const refused = refusedBy(planAcls);

describe("gregor acls: the command line into bindings (Kafka 2.4's AclCommand)", () => {
  it('principals × operations × hosts per resource; hosts default to *; operation defaults to All', () => {
    expect(lines(plan({ add: true, topic: ['t', ' t '], group: ['g'], 'allow-principal': ['User:a', 'User:b'], operation: ['read', 'Describe'] }))).toEqual([
      'GROUP:LITERAL:g ALLOW User:a@* DESCRIBE',
      'GROUP:LITERAL:g ALLOW User:a@* READ',
      'GROUP:LITERAL:g ALLOW User:b@* DESCRIBE',
      'GROUP:LITERAL:g ALLOW User:b@* READ',
      'TOPIC:LITERAL:t ALLOW User:a@* DESCRIBE',
      'TOPIC:LITERAL:t ALLOW User:a@* READ',
      'TOPIC:LITERAL:t ALLOW User:b@* DESCRIBE',
      'TOPIC:LITERAL:t ALLOW User:b@* READ',
    ]);
    expect(lines(plan({ add: true, cluster: true, 'deny-principal': ['User:x'], 'deny-host': ['10.0.0.1', '10.0.0.2'], 'allow-principal': ['User:y'] }))).toEqual([
      'CLUSTER:LITERAL:kafka-cluster ALLOW User:y@* ALL',
      'CLUSTER:LITERAL:kafka-cluster DENY User:x@10.0.0.1 ALL',
      'CLUSTER:LITERAL:kafka-cluster DENY User:x@10.0.0.2 ALL',
    ]);
    expect(lines(plan({ add: true, topic: ['ord'], 'transactional-id': ['tx'], 'resource-pattern-type': 'Prefixed', 'allow-principal': ['User:*'], operation: ['Write'] }))).toEqual([
      'TOPIC:PREFIXED:ord ALLOW User:*@* WRITE',
      'TRANSACTIONAL_ID:PREFIXED:tx ALLOW User:*@* WRITE',
    ]);
  });

  it('--producer: Write, Describe, Create on topics, Write, Describe on transactional ids, IdempotentWrite on the cluster with --idempotent', () => {
    expect(lines(plan({ add: true, producer: true, idempotent: true, topic: ['p'], 'transactional-id': ['tx'], 'allow-principal': ['User:p'] }))).toEqual([
      'CLUSTER:LITERAL:kafka-cluster ALLOW User:p@* IDEMPOTENT_WRITE',
      'TOPIC:LITERAL:p ALLOW User:p@* CREATE',
      'TOPIC:LITERAL:p ALLOW User:p@* DESCRIBE',
      'TOPIC:LITERAL:p ALLOW User:p@* WRITE',
      'TRANSACTIONAL_ID:LITERAL:tx ALLOW User:p@* DESCRIBE',
      'TRANSACTIONAL_ID:LITERAL:tx ALLOW User:p@* WRITE',
    ]);
    // Without --idempotent the cluster gets nothing, even with --cluster.
    expect(lines(plan({ add: true, producer: true, cluster: true, topic: ['p'], 'allow-principal': ['User:p'] }))).toEqual([
      'TOPIC:LITERAL:p ALLOW User:p@* CREATE',
      'TOPIC:LITERAL:p ALLOW User:p@* DESCRIBE',
      'TOPIC:LITERAL:p ALLOW User:p@* WRITE',
    ]);
  });

  it('--consumer: Read, Describe on topics and Read on groups; with --producer the topic gets both sets', () => {
    expect(lines(plan({ add: true, consumer: true, topic: ['c'], group: ['g'], 'allow-principal': ['User:c'], 'allow-host': ['h1'] }))).toEqual([
      'GROUP:LITERAL:g ALLOW User:c@h1 READ',
      'TOPIC:LITERAL:c ALLOW User:c@h1 DESCRIBE',
      'TOPIC:LITERAL:c ALLOW User:c@h1 READ',
    ]);
    expect(lines(plan({ add: true, producer: true, consumer: true, topic: ['t'], group: ['g'], 'allow-principal': ['User:u'] }))).toEqual([
      'GROUP:LITERAL:g ALLOW User:u@* READ',
      'TOPIC:LITERAL:t ALLOW User:u@* CREATE',
      'TOPIC:LITERAL:t ALLOW User:u@* DESCRIBE',
      'TOPIC:LITERAL:t ALLOW User:u@* READ',
      'TOPIC:LITERAL:t ALLOW User:u@* WRITE',
    ]);
  });

  it('--remove without principals removes all ACLs of the filter; any/match are filters for --remove and --list', () => {
    expect(lines(plan({ remove: true, topic: ['t'], 'resource-pattern-type': 'match' }))).toEqual(['TOPIC:MATCH:t (all)']);
    const listed = plan({ list: true, topic: ['t'], cluster: true, 'resource-pattern-type': 'any', principal: ['User:a'] });
    // The cluster is only ever a LITERAL pattern: with another pattern type --cluster adds no filter.
    expect(listed.listFilters).toEqual([{ resourceType: 'TOPIC', name: 't', patternType: 'ANY' }]);
    expect(listed.listPrincipals).toEqual(['User:a']);
    expect(plan({ list: true }).listFilters).toEqual([]);
  });

  it("refuses what Kafka refuses, with Kafka's messages", () => {
    expect(refused({ add: true, topic: ['t'], 'allow-principal': ['User:a'], operation: ['ClusterAction'] })).toBe(
      'ResourceType TOPIC only supports operations Read,Write,Create,Describe,Delete,Alter,DescribeConfigs,AlterConfigs,All',
    );
    expect(refused({ remove: true, group: ['g'], 'allow-principal': ['User:a'], operation: ['Write'] })).toBe('ResourceType GROUP only supports operations Read,Describe,Delete,All');
    expect(refused({ add: true, cluster: true, 'allow-principal': ['User:a'], operation: ['Read'] })).toBe(
      'ResourceType CLUSTER only supports operations Create,ClusterAction,DescribeConfigs,AlterConfigs,IdempotentWrite,Alter,Describe,All',
    );
    expect(refused({ add: true, 'transactional-id': ['x'], 'allow-principal': ['User:a'], operation: ['Read'] })).toBe('ResourceType TRANSACTIONAL_ID only supports operations Describe,Write,All');
    expect(refused({ add: true, topic: ['t'], 'allow-principal': ['User:a'], operation: ['Fly'] })).toContain('Fly not a valid operation name. The valid names are Read,Write,');
    expect(refused({ topic: ['t'] })).toBe('Command must include exactly one action: --list, --add, --remove. ');
    expect(refused({ add: true, list: true, topic: ['t'] })).toBe('Command must include exactly one action: --list, --add, --remove. ');
    expect(refused({ add: true, topic: ['t'] })).toBe('You must specify one of: --allow-principal, --deny-principal when trying to add ACLs.');
    expect(refused({ add: true, 'allow-principal': ['User:a'] })).toContain('You must provide at least one resource');
    expect(refused({ add: true, topic: ['t'], 'allow-principal': ['alice'] })).toBe('expected a string in format principalType:principalName but got alice');
    expect(refused({ add: true, topic: ['t'], 'allow-principal': ['User:a'], 'resource-pattern-type': 'any' })).toBe("A '--resource-pattern-type' value of 'ANY' is not valid when adding acls.");
    expect(refused({ list: true, 'resource-pattern-type': 'glob' })).toContain('Unknown resource-pattern-type: glob');
    expect(refused({ list: true, producer: true, topic: ['t'] })).toBe('Option "[list]" can\'t be used with option "[producer]"');
    expect(refused({ add: true, producer: true, topic: ['t'], 'allow-principal': ['User:a'], operation: ['Read'] })).toBe('Option "[producer]" can\'t be used with option "[operation]"');
    expect(refused({ add: true, consumer: true, topic: ['t'], 'allow-principal': ['User:a'] })).toContain('With --consumer you must specify a --topic and a --group');
    expect(refused({ add: true, producer: true, group: ['g'], 'allow-principal': ['User:a'] })).toBe('With --producer you must specify a --topic');
    expect(refused({ add: true, idempotent: true, topic: ['t'], 'allow-principal': ['User:a'] })).toBe('The --idempotent option is only available if --producer is set');
    expect(refused({ add: true, topic: ['t'], 'allow-principal': ['User:a'], principal: ['User:a'] })).toBe('The --principal option is only available if --list is set');
  });
});

const refusedTarget = refusedBy(aclTarget);

describe("gregor acls: the brokers or the authorizer on ZooKeeper (Kafka 2.4's AclCommandOptions.checkArgs)", () => {
  it('--bootstrap-server: the brokers, with --command-config', () => {
    expect(aclTarget({ 'bootstrap-server': 'h:9092', 'command-config': 'c.properties' }, 'usage')).toEqual({ kind: 'brokers', bootstrap: 'h:9092', commandConfig: 'c.properties' });
  });

  it("--authorizer-properties: ZooKeeper with the broker's default timeouts (18000 ms) unless given; either ZooKeeper authorizer class", () => {
    expect(aclTarget({ 'authorizer-properties': ['zookeeper.connect=127.0.0.1:2181'] }, 'usage')).toEqual({
      kind: 'authorizer',
      zooKeeper: { connect: '127.0.0.1:2181', sessionTimeoutMs: 18000, connectionTimeoutMs: 18000 },
    });
    for (const authorizer of ['kafka.security.auth.SimpleAclAuthorizer', 'kafka.security.authorizer.AclAuthorizer']) {
      const target = aclTarget({ authorizer, 'authorizer-properties': ['zookeeper.connect=z:1/chroot', 'zookeeper.session.timeout.ms=9000'] }, 'usage');
      expect(target).toEqual({ kind: 'authorizer', zooKeeper: { connect: 'z:1/chroot', sessionTimeoutMs: 9000, connectionTimeoutMs: 9000 } });
    }
    // The authorizer.-prefixed settings win (AclAuthorizer.configure); zookeeper.connect is still required.
    const props = ['zookeeper.connect=a:1', 'authorizer.zookeeper.url=b:2', 'zookeeper.connection.timeout.ms=100', 'authorizer.zookeeper.connection.timeout.ms=200'];
    expect(aclTarget({ 'authorizer-properties': props }, 'usage')).toEqual({ kind: 'authorizer', zooKeeper: { connect: 'b:2', sessionTimeoutMs: 18000, connectionTimeoutMs: 200 } });
  });

  it("refuses what Kafka refuses, with Kafka's messages", () => {
    expect(refusedTarget({})).toBe('Missing required argument "[authorizer-properties]"');
    expect(refusedTarget({ 'bootstrap-server': 'h:9092', authorizer: 'kafka.security.authorizer.AclAuthorizer' })).toBe('Only one of --bootstrap-server or --authorizer must be specified');
    expect(refusedTarget({ 'bootstrap-server': 'h:9092', 'authorizer-properties': ['zookeeper.connect=z:1'] })).toBe('The --authorizer-properties option can only be used with --authorizer option');
    expect(refusedTarget({ 'command-config': 'c.properties', 'authorizer-properties': ['zookeeper.connect=z:1'] })).toBe('The --command-config option can only be used with --bootstrap-server option');
    expect(refusedTarget({ 'authorizer-properties': ['zookeeper.session.timeout.ms=1000'] })).toBe('Missing required configuration "zookeeper.connect" which has no default value.');
    expect(refusedTarget({ 'authorizer-properties': ['zookeeper.connect'] })).toBe('Missing value for key zookeeper.connect');
    expect(refusedTarget({ 'authorizer-properties': ['zookeeper.connect=z:1', 'zookeeper.session.timeout.ms=soon'] })).toBe('Invalid value soon for configuration zookeeper.session.timeout.ms: Not a number of type INT');
    expect(refusedTarget({ authorizer: 'com.example.RangerAuthorizer', 'authorizer-properties': ['zookeeper.connect=z:1'] })).toBe(
      'Authorizer com.example.RangerAuthorizer is not supported: use kafka.security.authorizer.AclAuthorizer or kafka.security.auth.SimpleAclAuthorizer (ACLs in ZooKeeper)',
    );
  });
});
