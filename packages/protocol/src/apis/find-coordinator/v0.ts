// FindCoordinator Request (Version: 0) => key
// FindCoordinator Response (Version: 0) => error_code node_id host port
import { findCoordinatorCodec } from './codec.js';

export const v0 = findCoordinatorCodec(0);
