// DescribeConfigs Request and Response (Version: 2) => same as version 1 (KIP-219: the response comes before throttling)
import { sameAs } from '../../api.js';
import { v1 } from './v1.js';

export const v2 = sameAs(v1, 2);
