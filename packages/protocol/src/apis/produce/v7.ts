// Produce Request and Response (Version: 7) => same as version 5 (records may use zstd)
import { sameAs } from '../../api.js';
import { v5 } from './v5.js';

export const v7 = sameAs(v5, 7);
