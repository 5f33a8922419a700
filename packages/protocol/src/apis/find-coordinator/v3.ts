// First flexible version (request header v2, response header v1; compact strings; tagged fields).
// FindCoordinator Request (Version: 3) => key key_type TAG_BUFFER
// FindCoordinator Response (Version: 3) => throttle_time_ms error_code error_message node_id host port TAG_BUFFER
import { findCoordinatorCodec } from './codec.js';

export const v3 = findCoordinatorCodec(3);
