// ListOffsets Request and Response (Version: 5) => same as version 4 (may return OFFSET_NOT_AVAILABLE)
import { sameAs } from '../../api.js';
import { v4 } from './v4.js';

export const v5 = sameAs(v4, 5);
