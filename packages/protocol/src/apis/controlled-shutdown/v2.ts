// ControlledShutdown Request (Version: 2) => broker_id broker_epoch
// ControlledShutdown Response (Version: 2) => same as version 1
import { controlledShutdownCodec } from './codec.js';

export const v2 = controlledShutdownCodec(2);
