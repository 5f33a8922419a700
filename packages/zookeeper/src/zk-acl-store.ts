import type { ZkClient } from './zk-client.js';
import { ZkError, ZkErrorCode } from './zk-errors.js';
import type { ZkStat, ZkWatcher } from './zk-types.js';
import { decodeAclChange, decodeAcls, encodeAclChange, encodeAcls, isAclResourceType, type AclEntryData, type AclResourceData } from './acl-data.js';
import * as paths from './paths.js';

/** A resource's ACLs with the znode version they were read at (-1: no znode). */
export interface VersionedAcls {
  acls: AclEntryData[];
  zkVersion: number;
}

export interface AclChangeNotification {
  node: string;
  resource: AclResourceData | null;
  /** Creation time of the notification (ms): old ones are purged, as Kafka's listener does. */
  ctime: number;
}

const isCode = (e: unknown, code: number) => e instanceof ZkError && e.zkCode === code;

/**
 * Reads and writes of Kafka's ACL znodes (KafkaZkClient's ACL methods, 2.4): resource znodes under
 * /kafka-acl and /kafka-acl-extended/prefixed, updated with conditional writes on the znode version,
 * and the change notifications every broker's authorizer follows.
 */
export class ZkAclStore {
  readonly #source: { readonly client: ZkClient } | ZkClient;

  constructor(source: { readonly client: ZkClient } | ZkClient) {
    this.#source = source;
  }

  get #zk(): ZkClient {
    const s = this.#source;
    return 'client' in s ? s.client : s;
  }

  /** KafkaZkClient.createAclPaths. */
  async createAclPaths(): Promise<void> {
    for (const path of paths.aclPersistentPaths()) await this.#zk.mkdirp(path);
  }

  /** Every resource that has an ACL znode, per pattern type (known resource types only). */
  async listResources(): Promise<AclResourceData[]> {
    const out: AclResourceData[] = [];
    for (const patternType of ['LITERAL', 'PREFIXED'] as const) {
      let types: string[];
      try {
        types = await this.#zk.getChildren(paths.aclStorePath(patternType));
      } catch (e) {
        if (isCode(e, ZkErrorCode.NO_NODE)) continue;
        throw e;
      }
      for (const type of types) {
        if (!isAclResourceType(type)) continue;
        const names = await this.#zk.getChildren(paths.aclResourceTypePath(patternType, type)).catch((e: unknown) => {
          if (isCode(e, ZkErrorCode.NO_NODE)) return [] as string[];
          throw e;
        });
        for (const name of names) out.push({ resourceType: type, name, patternType });
      }
    }
    return out;
  }

  async getAcls(r: AclResourceData): Promise<VersionedAcls> {
    const path = paths.aclResourcePath(r.patternType, r.resourceType, r.name);
    const node = await this.#zk.getDataOrNull(path);
    if (!node) return { acls: [], zkVersion: -1 };
    return { acls: node.data.length === 0 ? [] : decodeAcls(path, node.data), zkVersion: node.stat.version };
  }

  /**
   * Replaces a resource's ACLs if its znode is still at `expectedVersion` (-1: it must not exist);
   * an empty list deletes the znode. Returns the new version, or null when someone else changed it first.
   */
  async conditionalSetAcls(r: AclResourceData, acls: readonly AclEntryData[], expectedVersion: number): Promise<number | null> {
    const path = paths.aclResourcePath(r.patternType, r.resourceType, r.name);
    try {
      if (acls.length === 0) {
        if (expectedVersion >= 0) await this.#zk.delete(path, expectedVersion);
        return 0;
      }
      if (expectedVersion < 0) {
        await this.#zk.mkdirp(paths.aclResourceTypePath(r.patternType, r.resourceType));
        await this.#zk.create(path, encodeAcls(acls));
        return 0;
      }
      const stat: ZkStat = await this.#zk.setData(path, encodeAcls(acls), expectedVersion);
      return stat.version;
    } catch (e) {
      if (isCode(e, ZkErrorCode.BAD_VERSION) || isCode(e, ZkErrorCode.NODE_EXISTS) || isCode(e, ZkErrorCode.NO_NODE)) return null;
      throw e;
    }
  }

  /** Announces a change of one resource's ACLs to every broker. */
  async createChangeNotification(r: AclResourceData): Promise<string> {
    return this.#zk.create(`${paths.aclChangesPath(r.patternType)}/${paths.aclChangeNotificationPrefix}`, encodeAclChange(r), 'persistent_sequential');
  }

  /** Notification node names of one store, oldest first; the watcher fires on the next change. */
  async getChangeNotifications(store: paths.AclPatternTypeName, watcher?: ZkWatcher): Promise<string[]> {
    const children = await this.#zk.getChildren(paths.aclChangesPath(store), watcher);
    return children.filter((c) => c.startsWith(paths.aclChangeNotificationPrefix)).sort();
  }

  /** One notification (null when purged meanwhile); an unreadable one has resource null. */
  async getChangeNotification(store: paths.AclPatternTypeName, node: string): Promise<AclChangeNotification | null> {
    const got = await this.#zk.getDataOrNull(`${paths.aclChangesPath(store)}/${node}`);
    if (!got) return null;
    let resource: AclResourceData | null = null;
    try {
      resource = decodeAclChange(store, got.data);
    } catch {
      resource = null;
    }
    return { node, resource, ctime: got.stat.ctime };
  }

  async deleteChangeNotification(store: paths.AclPatternTypeName, node: string): Promise<void> {
    await this.#zk.delete(`${paths.aclChangesPath(store)}/${node}`).catch((e: unknown) => {
      if (!isCode(e, ZkErrorCode.NO_NODE)) throw e;
    });
  }
}
