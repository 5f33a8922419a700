import { InvalidRequestError } from '@gregor/common';
import { describe, expect, it } from 'vitest';
import { ApiVersions } from '../apis/api-versions/index.js';
import { Fetch } from '../apis/fetch/index.js';
import { Metadata } from '../apis/metadata/index.js';
import { FrameReader } from './frame-reader.js';
import { decodeRequestFrame, decodeResponseFrame, encodeRequestFrame, encodeResponseFrame, readResponseCorrelationId, UnsupportedVersionError } from './frames.js';

const hex = (parts: (string | Buffer)[]): Buffer => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'hex') : p)));
const str = (s: string): Buffer => Buffer.from(s, 'latin1');

/** Bytes captured on loopback from librdkafka 2.0.2 and kafkajs 2.2.4 (kafka-protocol-schemas.md), size prefix included. */
const librdkafkaV3 = hex(['00000024', '0012', '0003', '00000001', '0007', str('rdkafka'), '00', '0b', str('librdkafka'), '06', str('2.0.2'), '00']);
const librdkafkaV0 = hex(['00000011', '0012', '0000', '00000002', '0007', str('rdkafka')]);
const kafkajsV2 = hex(['00000012', '0012', '0002', '00000000', '0008', str('kjs-test')]);

describe('request frames', () => {
  it('encodes ApiVersions v3 (request header v2) exactly as librdkafka 2.0.2 does', () => {
    const frame = Buffer.concat(
      encodeRequestFrame(ApiVersions.versions.get(3)!, { correlationId: 1, clientId: 'rdkafka' }, { clientSoftwareName: 'librdkafka', clientSoftwareVersion: '2.0.2' }),
    );
    expect(frame.toString('hex')).toBe(librdkafkaV3.toString('hex'));
  });

  it('encodes ApiVersions v0 and v2 (request header v1) exactly as librdkafka and kafkajs do', () => {
    expect(Buffer.concat(encodeRequestFrame(ApiVersions.versions.get(0)!, { correlationId: 2, clientId: 'rdkafka' }, {}))).toEqual(librdkafkaV0);
    expect(Buffer.concat(encodeRequestFrame(ApiVersions.versions.get(2)!, { correlationId: 0, clientId: 'kjs-test' }, {}))).toEqual(kafkajsV2);
  });

  it('decodes the captured requests with the right header version', () => {
    const [v3] = new FrameReader().push(librdkafkaV3);
    expect(decodeRequestFrame(v3!)).toMatchObject({
      header: { apiKey: 18, apiVersion: 3, correlationId: 1, clientId: 'rdkafka' },
      api: { name: 'ApiVersions' },
      request: { clientSoftwareName: 'librdkafka', clientSoftwareVersion: '2.0.2' },
    });
    const [v2] = new FrameReader().push(kafkajsV2);
    expect(decodeRequestFrame(v2!)).toMatchObject({ header: { apiVersion: 2, correlationId: 0, clientId: 'kjs-test' }, codec: { version: 2 } });
  });

  it('reports an unsupported version with the header, so ApiVersions can answer it', () => {
    const v9 = Buffer.from(librdkafkaV3.subarray(4));
    v9.writeInt16BE(9, 2);
    const err = (() => {
      try {
        decodeRequestFrame(v9);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(UnsupportedVersionError);
    expect(err).toMatchObject({ code: 35, header: { apiKey: 18, apiVersion: 9, correlationId: 1 }, api: { maxVersion: 3 } });
  });

  it('rejects an unknown api key as an invalid request', () => {
    const frame = hex(['03e7', '0000', '00000005', 'ffff']);
    expect(() => decodeRequestFrame(frame)).toThrow(InvalidRequestError);
  });
});

describe('response frames', () => {
  it('writes ApiVersions v3 responses with header v0 (no tag byte after the correlation id)', () => {
    const v3 = ApiVersions.versions.get(3)!;
    const frame = Buffer.concat(encodeResponseFrame(v3, 42, { errorCode: 0, apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 3 }], throttleTimeMs: 0 }));
    expect(frame.toString('hex')).toBe(['00000013', '0000002a', '0000', '02', '0012', '0000', '0003', '00', '00000000', '00'].join(''));
    expect(readResponseCorrelationId(frame.subarray(4))).toBe(42);
    expect(decodeResponseFrame(frame.subarray(4), v3).response.apiKeys).toEqual([{ apiKey: 18, minVersion: 0, maxVersion: 3 }]);
  });

  it('keeps a large record set as a separate chunk and still writes the right size prefix', () => {
    const v11 = Fetch.versions.get(11)!;
    const recordSet = Buffer.alloc(64 * 1024, 9);
    const response = {
      throttleTimeMs: 0,
      errorCode: 0,
      sessionId: 0,
      responses: [
        {
          topic: 't',
          partitionResponses: [
            { partition: 0, errorCode: 0, highWatermark: 1, lastStableOffset: 1, logStartOffset: 0, abortedTransactions: null, preferredReadReplica: -1, recordSet },
          ],
        },
      ],
    };
    const chunks = encodeResponseFrame(v11, 7, response);
    expect(chunks).toContain(recordSet);
    const wire = Buffer.concat(chunks);
    expect(wire.readInt32BE(0)).toBe(wire.length - 4);
    const [frame] = new FrameReader().push(wire);
    const decoded = decodeResponseFrame(frame!, v11);
    expect(decoded.correlationId).toBe(7);
    expect(decoded.response.responses[0]!.partitionResponses[0]!.recordSet).toEqual(recordSet);
  });

  it('round-trips a Metadata request frame through FrameReader and decodeRequestFrame', () => {
    const v4 = Metadata.versions.get(4)!;
    const wire = Buffer.concat(encodeRequestFrame(v4, { correlationId: 3, clientId: null }, { topics: null, allowAutoTopicCreation: false }));
    const [frame] = new FrameReader().push(wire);
    expect(decodeRequestFrame(frame!)).toMatchObject({ header: { apiKey: 3, apiVersion: 4, clientId: null }, request: { topics: null, allowAutoTopicCreation: false } });
  });
});
