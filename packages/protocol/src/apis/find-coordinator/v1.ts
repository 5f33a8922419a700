// FindCoordinator Request (Version: 1) => key key_type
// FindCoordinator Response (Version: 1) => throttle_time_ms error_code error_message node_id host port
import { findCoordinatorCodec } from './codec.js';

export const v1 = findCoordinatorCodec(1);
