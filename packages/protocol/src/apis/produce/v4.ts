// Produce Request and Response (Version: 4) => same as version 3 (may return KAFKA_STORAGE_ERROR)
import { sameAs } from '../../api.js';
import { v3 } from './v3.js';

export const v4 = sameAs(v3, 4);
