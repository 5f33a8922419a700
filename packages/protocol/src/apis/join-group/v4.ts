// JoinGroup Request and Response (Version: 4) => same as version 3
// (a join with an empty member id gets MEMBER_ID_REQUIRED and its new id, and joins again with it)
import { sameAs } from '../../api.js';
import { v2 } from './v2.js';

export const v4 = sameAs(v2, 4);
