import type { GroupCoordinator } from '@gregor/coordinator';
import type { BrokerServices } from '../broker-services.js';

/** What the group APIs use: the broker's services and its group coordinator. */
export interface GroupServices extends BrokerServices {
  readonly groupCoordinator: GroupCoordinator;
}
