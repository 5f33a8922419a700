// Fetch Request and Response (Version: 8) => same as version 7
import { sameAs } from '../../api.js';
import { v7 } from './v7.js';

export const v8 = sameAs(v7, 8);
