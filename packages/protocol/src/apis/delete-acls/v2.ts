// DeleteAcls Request (Version: 2) => [filters] TAG_BUFFER     (flexible; every struct ends with TAG_BUFFER)
// DeleteAcls Response (Version: 2) => throttle_time_ms [filter_results] TAG_BUFFER
import { deleteAclsCodec } from './codec.js';

export const v2 = deleteAclsCodec(2);
