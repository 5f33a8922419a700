import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@gregor/common';
import { AclOperationCode as Op, AclPatternTypeCode as Pat, AclPermissionTypeCode as Perm, AclResourceTypeCode as Res } from '@gregor/protocol';
import { KafkaZkClient, ZkAclStore, ZkClient } from '@gregor/zookeeper';
import { startTestZooKeeper, type TestZooKeeper } from '../../../zookeeper/src/test-zookeeper.js';
import { AclAuthorizer } from './acl-authorizer.js';
import type { AclBinding, AclFilter } from './acl.js';

let zk: TestZooKeeper;
let a1: AclAuthorizer;
let a2: AclAuthorizer;
let kafka: KafkaZkClient;
const clients: ZkClient[] = [];
/** A client of the built @gregor/zookeeper (the type the authorizer takes), closed in afterAll. */
async function connect(): Promise<ZkClient> {
  const c = await ZkClient.connect({ connectString: zk.connectString, sessionTimeoutMs: 2000, operationTimeoutMs: 5000, logger: silentLogger() });
  clients.push(c);
  return c;
}
const settings = { superUsers: ['User:admin'], allowEveryoneIfNoAclFound: false };

beforeAll(async () => {
  zk = await startTestZooKeeper();
  kafka = new KafkaZkClient(await connect());
  a1 = new AclAuthorizer(new ZkAclStore(await connect()), settings, silentLogger());
  a2 = new AclAuthorizer(new ZkAclStore(await connect()), settings, silentLogger());
  await a1.start();
  await a2.start();
});
afterAll(async () => {
  await a1?.stop();
  await a2?.stop();
  await Promise.all(clients.map((c) => c.close(500)));
  await zk?.stop();
});

const alice = { principal: 'User:alice', clientHost: '10.0.0.1' };
const binding = (name: string, operation: AclBinding['entry']['operation'], permissionType: 'Allow' | 'Deny' = 'Allow', patternType: 'LITERAL' | 'PREFIXED' = 'LITERAL', principal = 'User:alice'): AclBinding => ({
  pattern: { resourceType: 'Topic', name, patternType },
  entry: { principal, permissionType, operation, host: '*' },
});
const all: AclFilter = { resourceType: Res.ANY, name: null, patternType: Pat.ANY, principal: null, host: null, operation: Op.ANY, permissionType: Perm.ANY };
const eventually = async (check: () => boolean, what: string) => {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('AclAuthorizer on ZooKeeper', () => {
  it('denies everything by default except to super users', () => {
    expect(a1.authorize(alice, 'Read', 'Topic', 'orders')).toBe(false);
    expect(a1.authorize({ principal: 'User:admin', clientHost: '1.2.3.4' }, 'ClusterAction', 'Cluster', 'kafka-cluster')).toBe(true);
  });

  it('creates ACLs in Kafka\'s znodes; another broker follows through the change notifications', async () => {
    expect(await a1.createAcls([binding('orders', 'Read'), binding('orders', 'Write', 'Deny'), binding('pay-', 'Write', 'Allow', 'PREFIXED')])).toEqual([null, null, null]);
    expect(a1.authorize(alice, 'Read', 'Topic', 'orders')).toBe(true);
    expect(a1.authorize(alice, 'Write', 'Topic', 'orders')).toBe(false);
    expect(a1.authorize(alice, 'Write', 'Topic', 'pay-eu')).toBe(true);
    expect(a1.authorize(alice, 'Describe', 'Topic', 'pay-eu')).toBe(true);
    expect(JSON.parse((await kafka.zk.getData('/kafka-acl/Topic/orders')).data.toString()).acls).toHaveLength(2);
    expect(await kafka.zk.exists('/kafka-acl-extended/prefixed/Topic/pay-')).not.toBeNull();
    await eventually(() => a2.authorize(alice, 'Write', 'Topic', 'pay-eu') && a2.authorize(alice, 'Read', 'Topic', 'orders'), 'broker 2 sees the ACLs');
    expect(a2.acls(all)).toHaveLength(3);
  });

  it('picks up ACLs written straight to ZooKeeper by kafka-acls --authorizer-properties (znode + notification)', async () => {
    await kafka.zk.create('/kafka-acl/Group/app', Buffer.from('{"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow","operation":"Read","host":"*"}]}'));
    await kafka.zk.create('/kafka-acl-changes/acl_changes_', Buffer.from('Group:app'), 'persistent_sequential');
    await eventually(() => a1.authorize(alice, 'Read', 'Group', 'app') && a2.authorize(alice, 'Read', 'Group', 'app'), 'both brokers see the group ACL');
  });

  it('describes with filters and deletes matching ACLs everywhere', async () => {
    const match: AclFilter = { ...all, resourceType: Res.TOPIC, name: 'pay-us', patternType: Pat.MATCH };
    expect(a1.acls(match).map((b) => b.pattern.name)).toEqual(['pay-']);
    const [result] = await a1.deleteAcls([{ ...all, resourceType: Res.TOPIC, permissionType: Perm.DENY }]);
    expect(result!.deleted.map((d) => [d.binding.pattern.name, d.binding.entry.operation, d.error])).toEqual([['orders', 'Write', null]]);
    expect(a1.authorize(alice, 'Write', 'Topic', 'orders')).toBe(false); // no Allow of Write either
    await a1.deleteAcls([{ ...all, resourceType: Res.TOPIC }]);
    expect(await kafka.zk.exists('/kafka-acl/Topic/orders')).toBeNull();
    await eventually(() => !a2.authorize(alice, 'Read', 'Topic', 'orders') && a2.acls({ ...all, resourceType: Res.TOPIC }).length === 0, 'broker 2 sees the deletion');
  });

  it('concurrent writers on one resource both land (conditional writes with retry)', async () => {
    await Promise.all([a1.createAcls([binding('race', 'Read', 'Allow', 'LITERAL', 'User:x')]), a2.createAcls([binding('race', 'Read', 'Allow', 'LITERAL', 'User:y')])]);
    const stored = JSON.parse((await kafka.zk.getData('/kafka-acl/Topic/race')).data.toString()).acls.map((a: { principal: string }) => a.principal).sort();
    expect(stored).toEqual(['User:x', 'User:y']);
    await eventually(() => a1.authorize({ principal: 'User:y', clientHost: 'h' }, 'Read', 'Topic', 'race') && a2.authorize({ principal: 'User:x', clientHost: 'h' }, 'Read', 'Topic', 'race'), 'both see both');
  });

  it('authorizes by resource type (InitProducerId for an idempotent producer): some Allowed topic Write not overridden by a Deny', async () => {
    const bob = { principal: 'User:bob', clientHost: '10.0.0.2' };
    expect(a1.authorizeByResourceType(bob, 'Write', 'Topic')).toBe(false);
    await a1.createAcls([binding('bob-only', 'Write', 'Allow', 'LITERAL', 'User:bob')]);
    expect(a1.authorizeByResourceType(bob, 'Write', 'Topic')).toBe(true);
    expect(a1.authorizeByResourceType(bob, 'Read', 'Topic')).toBe(false);
    await a1.createAcls([binding('bob-', 'Write', 'Deny', 'PREFIXED', 'User:bob')]);
    expect(a1.authorizeByResourceType(bob, 'Write', 'Topic')).toBe(false); // the prefix Deny covers the only Allow
    await a1.createAcls([binding('other', 'All', 'Allow', 'LITERAL', 'User:bob')]);
    expect(a1.authorizeByResourceType(bob, 'Write', 'Topic')).toBe(true);
    await a1.createAcls([binding('*', 'Write', 'Deny', 'LITERAL', 'User:bob')]);
    expect(a1.authorizeByResourceType(bob, 'Write', 'Topic')).toBe(false);
    expect(a1.authorizeByResourceType({ principal: 'User:admin', clientHost: 'h' }, 'Write', 'Topic')).toBe(true);
    await a1.deleteAcls([{ ...all, principal: 'User:bob' }]);
  });

  it('a change to one store re-arms only that store\'s watch: 15 literal changes leave the prefixed store read once per its own change', async () => {
    const store = new ZkAclStore(await connect());
    const reads = new Map<string, number>();
    const getChangeNotifications = store.getChangeNotifications.bind(store);
    store.getChangeNotifications = (which, watcher) => {
      reads.set(which, (reads.get(which) ?? 0) + 1);
      return getChangeNotifications(which, watcher);
    };
    const a3 = new AclAuthorizer(store, settings, silentLogger());
    await a3.start();
    try {
      for (let i = 0; i < 15; i++) {
        await a1.createAcls([binding(`watched-${i}`, 'Read')]);
        await eventually(() => a3.authorize(alice, 'Read', 'Topic', `watched-${i}`), `literal change ${i} seen`);
      }
      await a1.createAcls([binding('watched-', 'Write', 'Allow', 'PREFIXED')]);
      await eventually(() => a3.authorize(alice, 'Write', 'Topic', 'watched-x'), 'prefixed change seen');
      await new Promise((r) => setTimeout(r, 300));
      // start() reads each store once; the prefixed store once more for its one change (15 before the fix).
      expect(reads.get('PREFIXED')).toBe(2);
      expect(reads.get('LITERAL')).toBeGreaterThanOrEqual(16);
    } finally {
      await a3.stop();
    }
  });
});
