import { describe, expect, it } from 'vitest';
import { closestName } from './closest-name.js';

describe('closestName', () => {
  it('finds typos, not unrelated names', () => {
    expect(closestName('partitons', ['partitions', 'replication-factor'])).toBe('partitions');
    expect(closestName('tpoics', ['topics', 'groups'])).toBe('topics');
    expect(closestName('broker.idd', ['broker.id', 'log.dirs'])).toBe('broker.id');
    expect(closestName('frobnicate', ['topics', 'groups'])).toBeNull();
  });
});
