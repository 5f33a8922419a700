// OffsetCommit Request and Response (Version: 4) => same as version 3
import { offsetCommitCodec } from './codec.js';

export const v4 = offsetCommitCodec(4);
