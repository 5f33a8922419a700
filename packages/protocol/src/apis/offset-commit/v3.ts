// OffsetCommit Request (Version: 3) => same as version 2
// OffsetCommit Response (Version: 3) => throttle_time_ms [topics]
import { offsetCommitCodec } from './codec.js';

export const v3 = offsetCommitCodec(3);
