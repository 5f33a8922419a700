import { describe, expect, it } from 'vitest';
import { AclOperationCode as Op, AclPatternTypeCode as Pat, AclPermissionTypeCode as Perm, AclResourceTypeCode as Res } from '@gregor/protocol';
import { aclsAllow, entryFilterMatches, filterProblem, patternFilterMatches, type AclEntry, type AclFilter, type ResourcePattern } from './acl.js';

const allow = (principal: string, operation: AclEntry['operation'], host = '*'): AclEntry => ({ principal, permissionType: 'Allow', operation, host });
const deny = (principal: string, operation: AclEntry['operation'], host = '*'): AclEntry => ({ principal, permissionType: 'Deny', operation, host });

describe('ACL decisions (AclAuthorizer.authorizeAction)', () => {
  it('no ACL at all: allow.everyone.if.no.acl.found decides', () => {
    expect(aclsAllow([], 'User:alice', '10.0.0.1', 'Read', false)).toBe(false);
    expect(aclsAllow([], 'User:alice', '10.0.0.1', 'Read', true)).toBe(true);
  });

  it('once a resource has ACLs, only a matching Allow allows, even with allow.everyone.if.no.acl.found', () => {
    const acls = [allow('User:bob', 'Read')];
    expect(aclsAllow(acls, 'User:alice', '10.0.0.1', 'Read', true)).toBe(false);
    expect(aclsAllow(acls, 'User:bob', '10.0.0.1', 'Read', false)).toBe(true);
    expect(aclsAllow(acls, 'User:bob', '10.0.0.1', 'Write', false)).toBe(false);
  });

  it('a matching Deny wins over any Allow', () => {
    const acls = [allow('User:*', 'All'), deny('User:alice', 'Write')];
    expect(aclsAllow(acls, 'User:alice', '10.0.0.1', 'Write', false)).toBe(false);
    expect(aclsAllow(acls, 'User:alice', '10.0.0.1', 'Read', false)).toBe(true);
    expect(aclsAllow(acls, 'User:bob', '10.0.0.1', 'Write', false)).toBe(true);
  });

  it('Describe is implied by Read, Write, Delete and Alter; DescribeConfigs by AlterConfigs; nothing else is implied', () => {
    for (const op of ['Read', 'Write', 'Delete', 'Alter'] as const) expect(aclsAllow([allow('User:a', op)], 'User:a', 'h', 'Describe', false)).toBe(true);
    expect(aclsAllow([allow('User:a', 'Create')], 'User:a', 'h', 'Describe', false)).toBe(false);
    expect(aclsAllow([allow('User:a', 'AlterConfigs')], 'User:a', 'h', 'DescribeConfigs', false)).toBe(true);
    expect(aclsAllow([allow('User:a', 'Write')], 'User:a', 'h', 'Read', false)).toBe(false);
    // A Deny of Read does not deny Describe, which Write still implies.
    expect(aclsAllow([allow('User:a', 'Write'), deny('User:a', 'Read')], 'User:a', 'h', 'Describe', false)).toBe(true);
  });

  it('hosts match exactly or by *', () => {
    expect(aclsAllow([allow('User:a', 'Read', '10.0.0.1')], 'User:a', '10.0.0.1', 'Read', false)).toBe(true);
    expect(aclsAllow([allow('User:a', 'Read', '10.0.0.1')], 'User:a', '10.0.0.2', 'Read', false)).toBe(false);
    expect(aclsAllow([allow('User:a', 'Read'), deny('User:*', 'Read', '10.0.0.2')], 'User:a', '10.0.0.2', 'Read', false)).toBe(false);
  });
});

const filter = (f: Partial<AclFilter>): AclFilter => ({
  resourceType: Res.ANY,
  name: null,
  patternType: Pat.ANY,
  principal: null,
  host: null,
  operation: Op.ANY,
  permissionType: Perm.ANY,
  ...f,
});
const topic = (name: string, patternType: ResourcePattern['patternType'] = 'LITERAL'): ResourcePattern => ({ resourceType: 'Topic', name, patternType });

describe('ACL binding filters (DescribeAcls, DeleteAcls)', () => {
  it('ANY / null match everything; LITERAL and PREFIXED match their type and exact name', () => {
    expect(patternFilterMatches(filter({}), topic('orders'))).toBe(true);
    expect(patternFilterMatches(filter({ resourceType: Res.GROUP }), topic('orders'))).toBe(false);
    expect(patternFilterMatches(filter({ name: 'orders', patternType: Pat.LITERAL }), topic('orders'))).toBe(true);
    expect(patternFilterMatches(filter({ name: 'orders', patternType: Pat.PREFIXED }), topic('orders'))).toBe(false);
    expect(patternFilterMatches(filter({ name: 'ord', patternType: Pat.PREFIXED }), topic('ord', 'PREFIXED'))).toBe(true);
    expect(patternFilterMatches(filter({ name: 'ord', patternType: Pat.ANY }), topic('ord', 'PREFIXED'))).toBe(true);
  });

  it('MATCH finds what applies to a name: the literal, the * wildcard and every prefix of it', () => {
    const f = filter({ name: 'orders-eu', patternType: Pat.MATCH });
    expect(patternFilterMatches(f, topic('orders-eu'))).toBe(true);
    expect(patternFilterMatches(f, topic('*'))).toBe(true);
    expect(patternFilterMatches(f, topic('orders-', 'PREFIXED'))).toBe(true);
    expect(patternFilterMatches(f, topic('orders-us', 'PREFIXED'))).toBe(false);
    expect(patternFilterMatches(f, topic('orders'))).toBe(false);
  });

  it('entry filters match principal, host, operation and permission', () => {
    const e = deny('User:alice', 'Write');
    expect(entryFilterMatches(filter({ principal: 'User:alice', operation: Op.WRITE, permissionType: Perm.DENY }), e)).toBe(true);
    expect(entryFilterMatches(filter({ principal: 'User:bob' }), e)).toBe(false);
    expect(entryFilterMatches(filter({ operation: Op.READ }), e)).toBe(false);
    expect(entryFilterMatches(filter({ permissionType: Perm.ALLOW }), e)).toBe(false);
    expect(entryFilterMatches(filter({ host: '10.0.0.1' }), e)).toBe(false);
  });

  it('names unknown codes', () => {
    expect(filterProblem(filter({}))).toBeNull();
    expect(filterProblem(filter({ operation: 0 }))).toMatch(/unknown operation/);
    expect(filterProblem(filter({ resourceType: 9 }))).toMatch(/unknown resource type/);
  });
});
