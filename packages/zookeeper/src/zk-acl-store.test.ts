import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestZooKeeper, type TestZooKeeper } from './test-zookeeper.js';
import { decodeAclChange, encodeAclChange, encodeAcls } from './acl-data.js';
import { KafkaZkClient } from './kafka-zk-client.js';
import { desanitizeEntityName, sanitizeEntityName } from './paths.js';
import { ZkAclStore } from './zk-acl-store.js';

let zk: TestZooKeeper;
let kafka: KafkaZkClient;
let store: ZkAclStore;
beforeAll(async () => {
  zk = await startTestZooKeeper();
  const client = await zk.client();
  kafka = new KafkaZkClient(client);
  await kafka.ensurePersistentPaths();
  store = new ZkAclStore(client);
});
afterAll(async () => {
  await zk?.stop();
});

const allow = { principal: 'User:alice', permissionType: 'Allow', operation: 'Read', host: '*' };

describe('ACL and user znode payloads', () => {
  it('write ACLs with the field names and order of Kafka\'s Acl.toJsonCompatibleMap', () => {
    expect(encodeAcls([allow]).toString()).toBe('{"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow","operation":"Read","host":"*"}]}');
  });

  it('encode change notifications: literal as "Type:name", prefixed as JSON', () => {
    expect(encodeAclChange({ resourceType: 'Topic', name: 'orders', patternType: 'LITERAL' }).toString()).toBe('Topic:orders');
    expect(encodeAclChange({ resourceType: 'Group', name: 'app-', patternType: 'PREFIXED' }).toString()).toBe(
      '{"version":1,"resourceType":"Group","name":"app-","patternType":"PREFIXED"}',
    );
    expect(decodeAclChange('LITERAL', Buffer.from('Topic:a:b'))).toEqual({ resourceType: 'Topic', name: 'a:b', patternType: 'LITERAL' });
    expect(() => decodeAclChange('LITERAL', Buffer.from('Queue:x'))).toThrow(/ResourceType:ResourceName/);
  });

  it('sanitize user names as Kafka\'s Sanitizer (URL-encoding, * and space as %2A and %20)', () => {
    expect(sanitizeEntityName('alice')).toBe('alice');
    expect(sanitizeEntityName('CN=a b,O=*')).toBe('CN%3Da%20b%2CO%3D%2A');
    expect(sanitizeEntityName('ü/x')).toBe('%C3%BC%2Fx');
    expect(desanitizeEntityName('CN%3Da%20b%2CO%3D%2A')).toBe('CN=a b,O=*');
  });
});

describe('ZkAclStore (real ZooKeeper)', () => {
  it('creates Kafka\'s ACL paths', async () => {
    await store.createAclPaths();
    for (const p of ['/kafka-acl/Topic', '/kafka-acl/Cluster', '/kafka-acl-extended/prefixed/Group', '/kafka-acl-changes', '/kafka-acl-extended-changes']) {
      expect(await kafka.zk.exists(p), p).not.toBeNull();
    }
  });

  it('creates, updates conditionally and deletes a resource znode; a stale version loses', async () => {
    const r = { resourceType: 'Topic' as const, name: 'orders', patternType: 'LITERAL' as const };
    expect(await store.getAcls(r)).toEqual({ acls: [], zkVersion: -1 });
    expect(await store.conditionalSetAcls(r, [allow], -1)).toBe(0);
    expect(await store.conditionalSetAcls(r, [allow], -1)).toBeNull(); // exists now
    const deny = { ...allow, permissionType: 'Deny', operation: 'Write' };
    expect(await store.conditionalSetAcls(r, [allow, deny], 0)).toBe(1);
    expect(await store.conditionalSetAcls(r, [allow], 0)).toBeNull(); // stale
    expect(await store.getAcls(r)).toEqual({ acls: [allow, deny], zkVersion: 1 });
    expect(JSON.parse((await kafka.zk.getData('/kafka-acl/Topic/orders')).data.toString()).acls).toHaveLength(2);
    const p = { resourceType: 'Group' as const, name: 'app-', patternType: 'PREFIXED' as const };
    await store.conditionalSetAcls(p, [allow], -1);
    expect(await kafka.zk.exists('/kafka-acl-extended/prefixed/Group/app-')).not.toBeNull();
    expect(await store.listResources()).toEqual([r, p]);
    expect(await store.conditionalSetAcls(r, [], 1)).toBe(0);
    expect(await kafka.zk.exists('/kafka-acl/Topic/orders')).toBeNull();
  });

  it('writes and reads change notifications in both stores', async () => {
    await store.createChangeNotification({ resourceType: 'Topic', name: 'orders', patternType: 'LITERAL' });
    await store.createChangeNotification({ resourceType: 'Group', name: 'app-', patternType: 'PREFIXED' });
    const [lit] = await store.getChangeNotifications('LITERAL');
    expect(lit).toMatch(/^acl_changes_\d{10}$/);
    expect((await kafka.zk.getData(`/kafka-acl-changes/${lit}`)).data.toString()).toBe('Topic:orders');
    const [ext] = await store.getChangeNotifications('PREFIXED');
    expect((await store.getChangeNotification('PREFIXED', ext!))!.resource).toEqual({ resourceType: 'Group', name: 'app-', patternType: 'PREFIXED' });
    await store.deleteChangeNotification('LITERAL', lit!);
    expect(await store.getChangeNotifications('LITERAL')).toEqual([]);
  });

  it('keeps SCRAM users in /config/users/<sanitized> with a users/<name> change notification', async () => {
    await kafka.changeUserConfig('CN=bob', { 'SCRAM-SHA-256': 'salt=AA==,stored_key=AA==,server_key=AA==,iterations=4096' });
    expect((await kafka.zk.getData('/config/users/CN%3Dbob')).data.toString()).toBe(
      '{"version":1,"config":{"SCRAM-SHA-256":"salt=AA==,stored_key=AA==,server_key=AA==,iterations=4096"}}',
    );
    expect(await kafka.getUserConfig('CN=bob')).toEqual({ 'SCRAM-SHA-256': 'salt=AA==,stored_key=AA==,server_key=AA==,iterations=4096' });
    expect(await kafka.getUsers()).toEqual(['CN=bob']);
    const notes = await kafka.getConfigChangeNotifications();
    expect(await kafka.getConfigChangeNotification(notes[notes.length - 1]!)).toBe('users/CN%3Dbob');
  });
});
