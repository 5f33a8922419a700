// Metadata Request (Version: 4) => [topics] allow_auto_topic_creation
//   topics => name
// Metadata Response (Version: 4) => same as version 3
import { metadataCodec } from './codec.js';

export const v4 = metadataCodec(4);
