import { aclBindingProblem, aclFilterOf, AclAuthorizer, operationCode, operationOf, patternTypeCode, patternTypeOf, permissionCode, permissionOf, resourceTypeCode, resourceTypeOf, type AuthorizerAclBinding } from '@gregor/broker';
import { aclBindingOf, aclFilterFields, ANY_ACL_BINDING, type AclBinding } from '@gregor/client';
import { ErrorCode, GregorError, KafkaProtocolError, silentLogger } from '@gregor/common';
import { AclOperationCode, AclPatternTypeCode, AclPermissionTypeCode, AclResourceTypeCode } from '@gregor/protocol';
import { ZkAclStore, ZkClient } from '@gregor/zookeeper';
import type { AclService } from './acls-service.js';
import type { AuthorizerZooKeeper } from './acls-target.js';

/** The client's binding in the authorizer's names (Topic, Read, Allow), through the wire codes both share. */
function toAuthorizer({ pattern, entry }: AclBinding): AuthorizerAclBinding {
  return {
    pattern: { resourceType: resourceTypeOf(AclResourceTypeCode[pattern.resourceType])!, name: pattern.name, patternType: patternTypeOf(AclPatternTypeCode[pattern.patternType])! },
    entry: { principal: entry.principal, host: entry.host, operation: operationOf(AclOperationCode[entry.operation])!, permissionType: permissionOf(AclPermissionTypeCode[entry.permissionType])! },
  };
}

function fromAuthorizer({ pattern: p, entry: e }: AuthorizerAclBinding): AclBinding {
  return aclBindingOf(resourceTypeCode(p.resourceType), p.name, patternTypeCode(p.patternType), e.principal, e.host, operationCode(e.operation), permissionCode(e.permissionType));
}

/** An authorizer failure as the brokers would answer it (their CreateAcls and DeleteAcls handlers). */
function failure(error: Error | null): KafkaProtocolError | null {
  if (!error) return null;
  return new KafkaProtocolError(error instanceof GregorError ? error.code : ErrorCode.UNKNOWN_SERVER_ERROR, error.message);
}

/** The service over a started authorizer: bindings the brokers would refuse are refused alike (INVALID_REQUEST). */
function serviceOver(authorizer: AclAuthorizer, close: () => Promise<void>): AclService {
  return {
    async createAcls(bindings) {
      const problems = bindings.map((b) => aclBindingProblem(toAuthorizer(b)));
      const valid = bindings.filter((_, i) => problems[i] === null);
      const created = await authorizer.createAcls(valid.map(toAuthorizer));
      let next = 0;
      return bindings.map((binding, i) => ({
        binding,
        error: problems[i] !== null ? new KafkaProtocolError(ErrorCode.INVALID_REQUEST, problems[i]!) : failure(created[next++] ?? null),
      }));
    },
    async describeAcls(filter = ANY_ACL_BINDING) {
      return authorizer.acls(aclFilterOf(aclFilterFields(filter))).map(fromAuthorizer);
    },
    async deleteAcls(filters) {
      const results = await authorizer.deleteAcls(filters.map((f) => aclFilterOf(aclFilterFields(f))));
      return filters.map((filter, i) => ({
        filter,
        error: null,
        deleted: results[i]!.deleted.map((d) => ({ binding: fromAuthorizer(d.binding), error: failure(d.error) })),
      }));
    },
    close,
  };
}

/**
 * AclCommand's authorizer service: Kafka's AclAuthorizer run in this process on the cluster's
 * ZooKeeper (it reads every ACL at start; its writes leave the change notifications the brokers'
 * authorizers follow). close() stops it and ends the ZooKeeper session.
 */
export async function authorizerAclService(zooKeeper: AuthorizerZooKeeper): Promise<AclService> {
  const client = await ZkClient.connect({
    connectString: zooKeeper.connect,
    connectTimeoutMs: zooKeeper.connectionTimeoutMs,
    sessionTimeoutMs: zooKeeper.sessionTimeoutMs,
    logger: silentLogger(),
  });
  const authorizer = new AclAuthorizer(new ZkAclStore(client), { superUsers: [], allowEveryoneIfNoAclFound: false }, silentLogger());
  const close = async () => {
    await authorizer.stop().catch(() => undefined);
    await client.close().catch(() => undefined);
  };
  try {
    await authorizer.start();
  } catch (error) {
    await close();
    throw error;
  }
  return serviceOver(authorizer, close);
}
