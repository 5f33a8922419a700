export { Writer } from './primitives/writer.js';
export { Reader } from './primitives/reader.js';
export { defineApi, sameAs, type ApiDefinition, type ApiVersionCodec } from './api.js';
export { decodeRequestHeader, encodeRequestHeader, encodeResponseHeader, decodeResponseHeader, writeFrame, type RequestHeader } from './header.js';
export { FrameReader, FrameSizeError, type FrameReaderOptions } from './framing/frame-reader.js';
export * from './record-batch/index.js';
