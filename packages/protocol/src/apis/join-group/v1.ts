// JoinGroup Request (Version: 1) => group_id session_timeout_ms rebalance_timeout_ms member_id protocol_type [protocols]
// JoinGroup Response (Version: 1) => same as version 0
import { joinGroupCodec } from './codec.js';

export const v1 = joinGroupCodec(1);
