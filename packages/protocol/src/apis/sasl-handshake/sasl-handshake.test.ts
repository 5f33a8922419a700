import { describe, expect, it } from 'vitest';
import { encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
import { SaslHandshake } from './index.js';

describe('SaslHandshake', () => {
  it.each([...SaslHandshake.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = SaslHandshake.versions.get(v)!;
    for (const [kind, value] of [
      ['Request', { mechanism: 'SCRAM-SHA-512' }],
      ['Response', { errorCode: 33, mechanisms: ['PLAIN', 'SCRAM-SHA-256'] }],
    ] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.leftover).toBe(0);
    }
  });

  it('encodes the request as Kafka does: an i16-length string', () => {
    expect(encodeBody(SaslHandshake.versions.get(1)!, 'Request', { mechanism: 'PLAIN' }).toString('hex')).toBe('0005504c41494e');
  });
});
