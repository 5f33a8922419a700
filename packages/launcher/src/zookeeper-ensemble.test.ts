import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sleep } from '@gregor/common';
import { killAllManagedProcesses } from './managed-process.js';
import { ZooKeeperEnsemble } from './zookeeper-ensemble.js';
import { ZooKeeperNode } from './zookeeper-node.js';
import { freePort } from './free-port.js';
import { fourLetterWord } from './four-letter-word.js';

const dir = mkdtempSync(join(tmpdir(), 'gregor-zk-'));
afterAll(async () => {
  await killAllManagedProcesses();
  rmSync(dir, { recursive: true, force: true });
});

describe('ZooKeeperNode (standalone)', () => {
  it('starts, serves, pauses, resumes and stops', async () => {
    const node = new ZooKeeperNode({ id: 1, dir: join(dir, 'standalone'), clientPort: await freePort(), tickTime: 500, stopGraceMs: 3000 });
    await node.start();
    expect(node.isRunning()).toBe(true);
    expect(await node.mode()).toBe('standalone');
    expect(await fourLetterWord(node.config.clientPort, 'ruok')).toBe('imok');
    // a second handle on the same folder (another CLI invocation) sees the running server
    await expect(new ZooKeeperNode(node.config).start()).rejects.toThrow(/already running/);
    expect(ZooKeeperNode.attach(node.config.dir).pid).toBe(node.pid);
    node.pause();
    expect(await node.mode(500)).toBeNull();
    node.resume();
    expect(await node.mode()).toBe('standalone');
    await node.stop();
    expect(node.isRunning()).toBe(false);
    expect(await node.mode(500)).toBeNull();
  });

  it('reports the log tail when the server dies at startup', async () => {
    const node = new ZooKeeperNode({ id: 1, dir: join(dir, 'broken'), clientPort: await freePort(), java: '/bin/sh', readyTimeoutMs: 5000 });
    // /bin/sh cannot run the java flags: it exits at once with a message in the log
    await expect(node.start()).rejects.toThrow(/exited before serving/);
  });
});

describe('ZooKeeperEnsemble', () => {
  it('3 nodes serve; one killed → the others still serve; it rejoins after restart; re-attach from the folder', async () => {
    const ensemble = await ZooKeeperEnsemble.onFreePorts({ dir: join(dir, 'ensemble'), size: 3, tickTime: 500, detached: true, stopGraceMs: 3000 });
    await ensemble.start();
    const modes = await Promise.all(ensemble.nodes.map((n) => n.mode()));
    expect(modes.filter((m) => m === 'leader')).toHaveLength(1);
    expect(modes.filter((m) => m === 'follower')).toHaveLength(2);

    const leaderId = modes.indexOf('leader') + 1;
    await ensemble.node(leaderId).kill();
    expect(ensemble.node(leaderId).isRunning()).toBe(false);
    const others = ensemble.nodes.filter((n) => n.config.id !== leaderId);
    // the survivors elect a new leader among themselves
    // (right after the kill they may still report the old roles, and the follower may not answer yet while it
    // syncs with the new leader, so poll until both have settled)
    let survivorModes: string[] = [];
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(200)) {
      survivorModes = (await Promise.all(others.map((n) => n.mode(1000)))).map(String).sort();
      if (survivorModes[0] === 'follower' && survivorModes[1] === 'leader') break;
    }
    expect(survivorModes).toEqual(['follower', 'leader']);

    await ensemble.node(leaderId).start();
    expect(await ensemble.node(leaderId).mode()).toBe('follower');

    // another invocation sees the same processes through the pid files
    const attached = ZooKeeperEnsemble.attach(ensemble.dir);
    expect(attached.connectString).toBe(ensemble.connectString);
    expect(attached.nodes.map((n) => n.pid)).toEqual(ensemble.nodes.map((n) => n.pid));
    await attached.node(2).kill();
    expect(ensemble.node(2).isRunning()).toBe(false);
    await attached.stop();
    expect(ensemble.nodes.every((n) => !n.isRunning())).toBe(true);
  });
});
