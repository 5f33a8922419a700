// Fetch Request and Response (Version: 10) => same as version 9 (record sets may use zstd)
import { sameAs } from '../../api.js';
import { v9 } from './v9.js';

export const v10 = sameAs(v9, 10);
