// JoinGroup Request and Response (Version: 3) => same as version 2
import { sameAs } from '../../api.js';
import { v2 } from './v2.js';

export const v3 = sameAs(v2, 3);
