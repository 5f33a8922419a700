import { sleep, type Logger } from '@gregor/common';
import { ZkAclStore, type AclEntryData, type AclResourceData } from '@gregor/zookeeper';
import type { AuthorizerSettings } from '../config/security-config.js';
import {
  aclMatches,
  aclsAllow,
  entryFilterMatches,
  isOperation,
  isPermission,
  patternFilterMatches,
  WILDCARD_RESOURCE,
  type AclBinding,
  type AclEntry,
  type AclFilter,
  type Operation,
  type ResourcePattern,
  type ResourceType,
} from './acl.js';

interface CachedAcls {
  pattern: ResourcePattern;
  acls: AclEntry[];
  zkVersion: number;
}

/** A request's identity as the authorizer sees it. */
export interface AuthorizableContext {
  principal: string;
  /** The client's IP address. */
  clientHost: string;
}

export interface AclDeleteResult {
  /** The bindings this filter removed (each with its own error, null when removed). */
  deleted: { binding: AclBinding; error: Error | null }[];
}

const MAX_UPDATE_RETRIES = 10;
/** Kafka's ZkNodeChangeNotificationListener purges notifications older than this. */
const NOTIFICATION_EXPIRY_MS = 15 * 60_000;

const keyOf = (p: ResourcePattern) => `${p.patternType}\u0000${p.resourceType}\u0000${p.name}`;
const entryKey = (e: AclEntry) => `${e.principal}\u0000${e.permissionType}\u0000${e.operation}\u0000${e.host}`;
const STORES = ['LITERAL', 'PREFIXED'] as const;

/**
 * Kafka's AclAuthorizer on ZooKeeper: every broker keeps all ACLs in memory, loaded from
 * /kafka-acl and /kafka-acl-extended/prefixed and kept fresh by the change notifications any writer
 * leaves in /kafka-acl-changes and /kafka-acl-extended-changes. Decisions: super users allowed;
 * the resource's literal, wildcard and prefixed ACLs matched; none -> allow.everyone.if.no.acl.found;
 * any matching Deny wins; else an Allow of the operation (or one implying it).
 * Writers (CreateAcls, DeleteAcls) update a resource znode conditionally on its version, retrying.
 */
export class AclAuthorizer {
  readonly #store: ZkAclStore;
  readonly #settings: AuthorizerSettings;
  readonly #superUsers: Set<string>;
  readonly #log: Logger;
  readonly #cache = new Map<string, CachedAcls>();
  readonly #lastSeen = new Map<string, number>(STORES.map((s) => [s, -1]));
  #changes: Promise<void> = Promise.resolve();
  #writes: Promise<unknown> = Promise.resolve();
  #stopped = false;

  constructor(store: ZkAclStore, settings: AuthorizerSettings, log: Logger) {
    this.#store = store;
    this.#settings = settings;
    this.#superUsers = new Set(settings.superUsers);
    this.#log = log;
  }

  /** Creates Kafka's ACL paths, starts following changes, then loads every ACL (no window between the two). */
  async start(): Promise<void> {
    await this.#store.createAclPaths();
    for (const store of STORES) {
      const nodes = await this.#store.getChangeNotifications(store, () => this.#scheduleChanges(store));
      this.#lastSeen.set(store, Math.max(-1, ...nodes.map(sequenceOf)));
    }
    await this.#loadCache();
  }

  /** A new ZooKeeper session lost the watches: arm them again and reload everything. */
  onNewSession(): void {
    this.#changes = this.#changes
      .then(async () => {
        for (const store of STORES) await this.#store.getChangeNotifications(store, () => this.#scheduleChanges(store));
        await this.#loadCache();
      })
      .catch((err) => this.#log.warn({ err: (err as Error).message }, 'reloading ACLs after a new ZooKeeper session failed'));
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#changes;
    await this.#writes.catch(() => {});
  }

  isSuperUser(principal: string): boolean {
    return this.#superUsers.has(principal);
  }

  authorize(ctx: AuthorizableContext, op: Operation, resourceType: ResourceType, name: string, logIfDenied = true): boolean {
    if (this.#superUsers.has(ctx.principal)) return true;
    const allowed = aclsAllow(this.#matchingAcls(resourceType, name), ctx.principal, ctx.clientHost, op, this.#settings.allowEveryoneIfNoAclFound);
    if (!allowed && logIfDenied) {
      this.#log.info({ principal: ctx.principal, host: ctx.clientHost, operation: op, resource: `${resourceType}:LITERAL:${name}` }, `Principal = ${ctx.principal} is Denied Operation = ${op} from host = ${ctx.clientHost} on resource = ${resourceType}:LITERAL:${name}`);
    }
    return allowed;
  }

  /**
   * Whether the principal may do `op` on some resource of the type (KIP-679's authorizeByResourceType):
   * allowed where a resource named "hardcode" would be (super users, `*` Allows, no ACLs with
   * allow.everyone.if.no.acl.found), else when an Allow of the principal on a literal or prefixed
   * pattern is not overridden by a Deny on `*`, on the same literal name, or on a covering prefix.
   */
  authorizeByResourceType(ctx: AuthorizableContext, op: Operation, resourceType: ResourceType): boolean {
    if (this.authorize(ctx, op, resourceType, 'hardcode', false)) return true;
    const allows: ResourcePattern[] = [];
    const denies: ResourcePattern[] = [];
    for (const c of this.#cache.values()) {
      if (c.pattern.resourceType !== resourceType) continue;
      if (c.acls.some((a) => aclMatches(a, 'Deny', op, ctx.principal, ctx.clientHost))) denies.push(c.pattern);
      if (c.acls.some((a) => aclMatches(a, 'Allow', op, ctx.principal, ctx.clientHost))) allows.push(c.pattern);
    }
    if (denies.some((d) => d.patternType === 'LITERAL' && d.name === WILDCARD_RESOURCE)) return false;
    const deniedBy = (a: ResourcePattern) =>
      denies.some((d) => (d.patternType === 'PREFIXED' && a.name.startsWith(d.name)) || (a.patternType === 'LITERAL' && d.patternType === 'LITERAL' && d.name === a.name));
    return allows.some((a) => !deniedBy(a));
  }

  #matchingAcls(resourceType: ResourceType, name: string): AclEntry[] {
    const out: AclEntry[] = [];
    const literal = this.#cache.get(keyOf({ resourceType, name, patternType: 'LITERAL' }));
    if (literal) out.push(...literal.acls);
    if (name !== WILDCARD_RESOURCE) {
      const wildcard = this.#cache.get(keyOf({ resourceType, name: WILDCARD_RESOURCE, patternType: 'LITERAL' }));
      if (wildcard) out.push(...wildcard.acls);
    }
    for (const c of this.#cache.values()) {
      if (c.pattern.patternType === 'PREFIXED' && c.pattern.resourceType === resourceType && name.startsWith(c.pattern.name)) out.push(...c.acls);
    }
    return out;
  }

  /** Every ACL binding matching the filter (DescribeAcls). */
  acls(filter: AclFilter): AclBinding[] {
    const out: AclBinding[] = [];
    for (const c of this.#cache.values()) {
      if (!patternFilterMatches(filter, c.pattern)) continue;
      for (const entry of c.acls) if (entryFilterMatches(filter, entry)) out.push({ pattern: c.pattern, entry });
    }
    return out;
  }

  /** Adds the bindings, grouped by resource; one result (null = created) per binding, in order. */
  createAcls(bindings: readonly AclBinding[]): Promise<(Error | null)[]> {
    return this.#serialize(async () => {
      const results: (Error | null)[] = bindings.map(() => null);
      const byResource = new Map<string, { pattern: ResourcePattern; indexes: number[] }>();
      bindings.forEach((b, i) => {
        const k = keyOf(b.pattern);
        let g = byResource.get(k);
        if (!g) byResource.set(k, (g = { pattern: b.pattern, indexes: [] }));
        g.indexes.push(i);
      });
      for (const { pattern, indexes } of byResource.values()) {
        try {
          await this.#updateResource(pattern, (current) => {
            const next = new Map(current.map((e) => [entryKey(e), e]));
            for (const i of indexes) next.set(entryKey(bindings[i]!.entry), bindings[i]!.entry);
            return [...next.values()];
          });
        } catch (err) {
          for (const i of indexes) results[i] = err as Error;
        }
      }
      return results;
    });
  }

  /** Removes every binding matching each filter; one result per filter, in order. */
  deleteAcls(filters: readonly AclFilter[]): Promise<AclDeleteResult[]> {
    return this.#serialize(async () => {
      const results: AclDeleteResult[] = filters.map(() => ({ deleted: [] }));
      for (const c of [...this.#cache.values()]) {
        const matching = filters.map((f, i) => [f, i] as const).filter(([f]) => patternFilterMatches(f, c.pattern));
        if (matching.length === 0) continue;
        const removed: { binding: AclBinding; filter: number }[] = [];
        try {
          await this.#updateResource(c.pattern, (current) => {
            removed.length = 0;
            return current.filter((entry) => {
              const hit = matching.find(([f]) => entryFilterMatches(f, entry));
              if (hit) removed.push({ binding: { pattern: c.pattern, entry }, filter: hit[1] });
              return !hit;
            });
          });
          for (const r of removed) results[r.filter]!.deleted.push({ binding: r.binding, error: null });
        } catch (err) {
          for (const r of removed) results[r.filter]!.deleted.push({ binding: r.binding, error: err as Error });
        }
      }
      return results;
    });
  }

  #serialize<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#writes.then(fn, fn);
    this.#writes = run.catch(() => {});
    return run;
  }

  /** AclAuthorizer.updateResourceAcls: conditional write on the znode version, re-read and retry on a race, then notify. */
  async #updateResource(pattern: ResourcePattern, change: (current: AclEntry[]) => AclEntry[]): Promise<void> {
    let current = this.#cache.get(keyOf(pattern)) ?? (await this.#readResource(pattern));
    for (let attempt = 0; attempt <= MAX_UPDATE_RETRIES; attempt++) {
      const next = change(current.acls);
      const version = await this.#store.conditionalSetAcls(toData(pattern), next.map(toEntryData), current.zkVersion);
      if (version !== null) {
        const changed = next.length !== current.acls.length || next.some((e, i) => entryKey(e) !== entryKey(current.acls[i]!));
        this.#setCache({ pattern, acls: next, zkVersion: next.length === 0 ? -1 : version });
        if (changed) await this.#store.createChangeNotification(toData(pattern));
        return;
      }
      await sleep(100 + Math.floor(Math.random() * 50));
      current = await this.#readResource(pattern);
    }
    throw new Error(`Failed to update ACLs for ${pattern.resourceType}:${pattern.patternType}:${pattern.name} after trying a maximum of ${MAX_UPDATE_RETRIES} times`);
  }

  async #readResource(pattern: ResourcePattern): Promise<CachedAcls> {
    const { acls, zkVersion } = await this.#store.getAcls(toData(pattern));
    return { pattern, acls: acls.flatMap((a) => fromEntryData(a, this.#log)), zkVersion };
  }

  #setCache(c: CachedAcls): void {
    if (c.acls.length === 0) this.#cache.delete(keyOf(c.pattern));
    else this.#cache.set(keyOf(c.pattern), c);
  }

  async #loadCache(): Promise<void> {
    const fresh = new Map<string, CachedAcls>();
    for (const r of await this.#store.listResources()) {
      const c = await this.#readResource(r);
      if (c.acls.length > 0) fresh.set(keyOf(r), c);
    }
    this.#cache.clear();
    for (const [k, v] of fresh) this.#cache.set(k, v);
    this.#log.info({ resources: this.#cache.size }, 'ACLs loaded');
  }

  /** The watch of one store fired: only that store is read again and re-watched (the other's watch is still set). */
  #scheduleChanges(store: (typeof STORES)[number]): void {
    if (this.#stopped) return;
    this.#changes = this.#changes.then(() => this.#processChanges(store)).catch((err) => this.#log.warn({ err: (err as Error).message }, 'ACL change processing failed'));
  }

  /** Re-reads each resource named by a new notification, then purges notifications older than 15 minutes (as Kafka's listener). */
  async #processChanges(store: (typeof STORES)[number]): Promise<void> {
    const nodes = await this.#store.getChangeNotifications(store, () => this.#scheduleChanges(store));
    for (const node of nodes) {
      const n = await this.#store.getChangeNotification(store, node);
      if (!n) continue;
      const seq = sequenceOf(node);
      if (seq > this.#lastSeen.get(store)!) {
        this.#lastSeen.set(store, seq);
        if (n.resource) this.#setCache(await this.#readResource({ ...n.resource }));
        else this.#log.warn({ store, node }, 'ignoring an unreadable ACL change notification');
      }
      if (Date.now() - n.ctime > NOTIFICATION_EXPIRY_MS) await this.#store.deleteChangeNotification(store, node);
    }
  }
}

function sequenceOf(node: string): number {
  const n = Number(node.slice('acl_changes_'.length));
  return Number.isFinite(n) ? n : -1;
}

function toData(p: ResourcePattern): AclResourceData {
  return { resourceType: p.resourceType, name: p.name, patternType: p.patternType };
}

function toEntryData(e: AclEntry): AclEntryData {
  return { principal: e.principal, permissionType: e.permissionType, operation: e.operation, host: e.host };
}

function fromEntryData(a: AclEntryData, log: Logger): AclEntry[] {
  if (!isOperation(a.operation) || !isPermission(a.permissionType)) {
    log.warn({ acl: a }, 'ignoring an ACL with an unknown operation or permission type');
    return [];
  }
  return [{ principal: a.principal, permissionType: a.permissionType, operation: a.operation, host: a.host }];
}
