import { describe, expect, it } from 'vitest';
import { encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
import { SaslAuthenticate } from './index.js';
import type { SaslAuthenticateResponse } from './types.js';

const response = (_v: number): SaslAuthenticateResponse => ({
  errorCode: 58,
  errorMessage: 'Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512',
  authBytes: Buffer.alloc(0),
  sessionLifetimeMs: 0,
});

describe('SaslAuthenticate', () => {
  it.each([...SaslAuthenticate.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = SaslAuthenticate.versions.get(v)!;
    for (const [kind, value] of [
      ['Request', { authBytes: Buffer.from('n,,n=user,r=abc') }],
      ['Response', response(v)],
    ] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });

  it('v1 carries session_lifetime_ms after the token; v2 uses compact bytes and a tag section', () => {
    const res = { errorCode: 0, errorMessage: null, authBytes: Buffer.from('v='), sessionLifetimeMs: 5 };
    expect(encodeBody(SaslAuthenticate.versions.get(0)!, 'Response', res).toString('hex')).toBe('0000ffff00000002763d');
    expect(encodeBody(SaslAuthenticate.versions.get(1)!, 'Response', res).toString('hex')).toBe('0000ffff00000002763d0000000000000005');
    expect(encodeBody(SaslAuthenticate.versions.get(2)!, 'Response', res).toString('hex')).toBe('000000' + '03763d' + '0000000000000005' + '00');
  });
});
