import { describe, expect, it } from 'vitest';
import { allApis, ApiKey, getApi, supportedApiVersions } from './api-table.js';

describe('API table', () => {
  it('advertises the ranges the clients need', () => {
    const ranges = Object.fromEntries(supportedApiVersions().map((r) => [r.apiKey, [r.minVersion, r.maxVersion]]));
    expect(ranges).toEqual({
      0: [3, 7],
      1: [4, 11],
      2: [1, 5],
      3: [0, 8],
      4: [0, 2],
      5: [0, 1],
      6: [0, 5],
      7: [1, 2],
      8: [0, 7],
      9: [0, 5],
      10: [0, 2],
      11: [0, 5],
      12: [0, 3],
      13: [0, 3],
      14: [0, 3],
      15: [0, 4],
      16: [0, 2],
      18: [0, 3],
      19: [0, 4],
      20: [0, 3],
      23: [0, 3],
      37: [0, 1],
      42: [0, 1],
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

  it('marks only ApiVersions v3 as flexible', () => {
    const flexible = allApis().flatMap((api) => [...api.versions.values()].filter((c) => c.flexible).map((c) => `${api.name} v${c.version}`));
    expect(flexible).toEqual(['ApiVersions v3']);
  });
});
