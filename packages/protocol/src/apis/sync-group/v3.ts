// SyncGroup Request (Version: 3) => group_id generation_id member_id group_instance_id [assignments]
// SyncGroup Response (Version: 3) => same as version 1
import { syncGroupCodec } from './codec.js';

export const v3 = syncGroupCodec(3);
