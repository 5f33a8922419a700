import { describe, expect, it } from 'vitest';
import { allApis, ApiKey, getApi, supportedApiVersions } from './api-table.js';

describe('API table', () => {
  it('advertises the ranges the clients need', () => {
    const ranges = Object.fromEntries(supportedApiVersions().map((r) => [r.apiKey, [r.minVersion, r.maxVersion]]));
    expect(ranges).toEqual({
      0: [0, 8],
      1: [0, 11],
      2: [0, 5],
      3: [0, 9],
      4: [0, 4],
      5: [0, 2],
      6: [0, 6],
      7: [0, 3],
      8: [0, 8],
      9: [0, 6],
      10: [0, 3],
      11: [0, 6],
      12: [0, 4],
      13: [0, 4],
      14: [0, 4],
      15: [0, 5],
      16: [0, 3],
      17: [0, 1],
      18: [0, 3],
      19: [0, 5],
      20: [0, 4],
      21: [0, 2],
      22: [0, 2],
      23: [0, 3],
      29: [0, 2],
      30: [0, 2],
      31: [0, 2],
      32: [0, 4],
      33: [0, 2],
      35: [0, 2],
      36: [0, 2],
      37: [0, 1],
      42: [0, 2],
      43: [0, 2],
      44: [0, 1],
      45: [0, 0],
      46: [0, 0],
      47: [0, 0],
    });
  });

  it('maps every key to its definition, whose codecs carry the same key', () => {
    for (const [name, key] of Object.entries(ApiKey)) {
      const api = getApi(key)!;
      expect(api.name).toBe(name);
      for (const codec of api.versions.values()) expect(codec.apiKey).toBe(key);
    }
    expect(allApis()).toHaveLength(Object.keys(ApiKey).length);
    expect(getApi(999)).toBeUndefined();
  });

  it('marks a version flexible exactly when Kafka does (first flexible version per API, Kafka 2.4-2.8 message definitions)', () => {
    // apiKey -> first flexible version (undefined: never flexible), from Kafka's *Request.json "flexibleVersions".
    const FIRST_FLEXIBLE: Record<number, number | undefined> = {
      0: 9, 1: 12, 2: 6, 3: 9, 4: 4, 5: 2, 6: 6, 7: 3, 8: 8, 9: 6, 10: 3, 11: 6, 12: 4, 13: 4, 14: 4, 15: 5, 16: 3,
      17: undefined, 18: 3, 19: 5, 20: 4, 21: 2, 22: 2, 23: 4, 29: 2, 30: 2, 31: 2, 32: 4, 33: 2, 34: 2, 35: 2, 36: 2,
      37: 2, 42: 2, 43: 2, 44: 1, 45: 0, 46: 0, 47: undefined,
    };
    for (const api of allApis()) {
      expect(Object.hasOwn(FIRST_FLEXIBLE, api.apiKey), `${api.name} missing from FIRST_FLEXIBLE`).toBe(true);
      const first = FIRST_FLEXIBLE[api.apiKey];
      for (const codec of api.versions.values()) {
        expect(codec.flexible, `${api.name} v${codec.version}`).toBe(first !== undefined && codec.version >= first);
      }
    }
  });
});
