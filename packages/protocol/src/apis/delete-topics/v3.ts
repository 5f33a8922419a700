// DeleteTopics Request and Response (Version: 3) => same as version 1 (may return TOPIC_DELETION_DISABLED)
import { sameAs } from '../../api.js';
import { v1 } from './v1.js';

export const v3 = sameAs(v1, 3);
