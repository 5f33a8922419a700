import { Admin, type AclBinding, type AclBindingFilter, type CreateAclResult, type DeleteAclsResult } from '@gregor/client';
import { cliClient } from '../client-factory.js';
import type { AclTarget } from './acls-target.js';

/** What `gregor acls` needs of where the ACLs live (AclCommand's AclCommandService), with the Admin client's result shapes. */
export interface AclService {
  createAcls(bindings: readonly AclBinding[]): Promise<CreateAclResult[]>;
  describeAcls(filter?: AclBindingFilter): Promise<AclBinding[]>;
  deleteAcls(filters: readonly AclBindingFilter[]): Promise<DeleteAclsResult[]>;
  /** Closes its connections; never throws. */
  close(): Promise<void>;
}

/** AdminClientService: the brokers' CreateAcls, DescribeAcls and DeleteAcls. */
function adminAclService(bootstrap: string, commandConfig: string | undefined): AclService {
  const client = cliClient(bootstrap, commandConfig);
  const admin = new Admin(client);
  return {
    createAcls: (bindings) => admin.createAcls(bindings),
    describeAcls: (filter) => admin.describeAcls(filter),
    deleteAcls: (filters) => admin.deleteAcls(filters),
    close: () => client.close().catch(() => undefined),
  };
}

/** The service a command line names (see aclTarget); the authorizer (the broker package) is loaded only when it is used. */
export async function openAclService(target: AclTarget): Promise<AclService> {
  if (target.kind === 'brokers') return adminAclService(target.bootstrap, target.commandConfig);
  return (await import('./acls-authorizer-service.js')).authorizerAclService(target.zooKeeper);
}
