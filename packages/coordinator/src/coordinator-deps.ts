import type { Logger } from '@gregor/common';
import type { GroupCoordinatorConfig } from './coordinator-config.js';
import type { GroupMetadataManager } from './group-metadata-manager.js';

/** What GroupCoordinator gives its parts (rebalance, offsets). */
export interface GroupCoordinatorDeps {
  readonly config: GroupCoordinatorConfig;
  readonly manager: GroupMetadataManager;
  readonly logger: Logger;
  /** Started and not shut down. */
  isActive(): boolean;
  /** Errors every group request gets before looking at the group. */
  groupStatusError(groupId: string, requireGroupId?: boolean): number;
}
