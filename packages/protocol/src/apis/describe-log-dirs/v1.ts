// DescribeLogDirs Request and Response (Version: 1) => same as version 0 (throttling before the response, KIP-219)
import { sameAs } from '../../api.js';
import { v0 } from './v0.js';

export const v1 = sameAs(v0, 1);
