// ControlledShutdown Request (Version: 2) => broker_id broker_epoch
// ControlledShutdown Response (Version: 2) => same as version 1
import type { ApiVersionCodec } from '../../api.js';
import type { ControlledShutdownRequest, ControlledShutdownResponse } from './types.js';
import { v1 } from './v1.js';

export const v2: ApiVersionCodec<ControlledShutdownRequest, ControlledShutdownResponse> = {
  ...v1,
  version: 2,
  encodeRequest(w, req) {
    w.int32(req.brokerId).int64(req.brokerEpoch ?? -1);
  },
  decodeRequest: (r) => ({ brokerId: r.int32(), brokerEpoch: r.int64() }),
};
