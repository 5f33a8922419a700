import { describe, expect, it } from 'vitest';
import { silentLogger } from '@gregor/common';
import { ControllerEventManager } from './controller-event-manager.js';

type Event = { type: 'work'; id: number } | { type: 'block'; release: Promise<void> };

describe('ControllerEventManager', () => {
  it('handles events one at a time in order; events dropped by clear(), stop() or a stopped queue are preempted', async () => {
    const handled: number[] = [];
    const preempted: number[] = [];
    let release!: () => void;
    const events = new ControllerEventManager<Event>(
      async (e) => {
        if (e.type === 'block') await e.release;
        else handled.push(e.id);
      },
      silentLogger(),
      (e) => {
        if (e.type === 'work') preempted.push(e.id);
      },
    );
    events.start();
    events.put({ type: 'work', id: 1 });
    events.put({ type: 'block', release: new Promise<void>((r) => (release = r)) });
    await new Promise((r) => setTimeout(r, 10));
    events.put({ type: 'work', id: 2 });
    events.put({ type: 'work', id: 3 });
    events.clear(); // resigning: queued requests get an answer instead of none
    events.put({ type: 'work', id: 4 });
    release();
    await new Promise((r) => setTimeout(r, 10));
    expect(handled).toEqual([1, 4]);
    expect(preempted).toEqual([2, 3]);
    events.put({ type: 'block', release: new Promise<void>((r) => (release = r)) });
    events.put({ type: 'work', id: 5 });
    const stopping = events.stop();
    release();
    await stopping;
    events.put({ type: 'work', id: 6 });
    expect(handled).toEqual([1, 4]);
    expect(preempted).toEqual([2, 3, 5, 6]);
  });
});
