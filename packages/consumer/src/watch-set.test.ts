import { describe, expect, it } from 'vitest';
import type { ZkWatcher } from '@gregor/zookeeper';
import { WatchSet } from './watch-set.js';

describe('WatchSet', () => {
  it('arms a watch once until it fires, fails to register, or the session changes', async () => {
    const set = new WatchSet();
    const given: (ZkWatcher | undefined)[] = [];
    const read = async (w: ZkWatcher | undefined) => void given.push(w);
    let fired = 0;
    const watcher: ZkWatcher = () => void fired++;
    await set.read('ids', watcher, read);
    await set.read('ids', watcher, read);
    expect(given.map((w) => w !== undefined)).toEqual([true, false]);
    await given[0]!({ type: 'childrenChanged', path: '/x' });
    expect(fired).toBe(1);
    await set.read('ids', watcher, read);
    expect(given[2]).toBeDefined();
    await expect(set.read('t', watcher, async () => Promise.reject(new Error('lost')))).rejects.toThrow('lost');
    await set.read('t', watcher, read);
    expect(given[3]).toBeDefined();
    set.reset();
    await set.read('ids', watcher, read);
    expect(given[4]).toBeDefined();
  });
});
