// Produce Request and Response (Version: 6) => same as version 5
import { sameAs } from '../../api.js';
import { v5 } from './v5.js';

export const v6 = sameAs(v5, 6);
