// SyncGroup Request (Version: 0) => group_id generation_id member_id [assignments]
//   assignments => member_id assignment
// SyncGroup Response (Version: 0) => error_code assignment
import { syncGroupCodec } from './codec.js';

export const v0 = syncGroupCodec(0);
