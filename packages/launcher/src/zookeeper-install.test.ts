import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from './free-port.js';
import { findZooKeeper, ZooKeeperNotFoundError } from './zookeeper-install.js';
import { ZooKeeperNode } from './zookeeper-node.js';

describe('finding ZooKeeper', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it("takes ZOOKEEPER_CLASSPATH as given, then ZOOKEEPER_HOME, then Debian's package", () => {
    const none = () => false;
    expect(findZooKeeper({ ZOOKEEPER_CLASSPATH: '/x/*' }, none).classpath).toBe('/x/*');
    expect(findZooKeeper({}, (p) => p.startsWith('/usr/share/java/')).classpath).toBe('/usr/share/java/zookeeper.jar:/usr/share/java/slf4j-simple.jar');
    expect(findZooKeeper({}, (p) => p === '/usr/share/java/zookeeper.jar' || p === '/usr/share/java/slf4j-nop.jar')).toMatchObject({
      classpath: '/usr/share/java/zookeeper.jar:/usr/share/java/slf4j-nop.jar',
      source: "Debian's zookeeper package",
    });
    expect(findZooKeeper({ JAVA_HOME: '/jdk' }, (p) => p === '/jdk/bin/java' || p === '/usr/share/java/zookeeper.jar').java).toBe('/jdk/bin/java');
  });

  it('says what to install when nothing is found, and when ZOOKEEPER_HOME is not a release', () => {
    expect(() => findZooKeeper({}, () => false)).toThrow(ZooKeeperNotFoundError);
    expect(() => findZooKeeper({}, () => false)).toThrow(/apt-get install zookeeper.*ZOOKEEPER_HOME/);
    const empty = mkdtempSync(join(tmpdir(), 'gregor-zkhome-empty-'));
    dirs.push(empty);
    expect(() => findZooKeeper({ ZOOKEEPER_HOME: empty })).toThrow(/holds no ZooKeeper jars/);
  });

  it('runs a server from an unpacked-release layout (ZOOKEEPER_HOME with lib/zookeeper-*.jar)', async () => {
    // Build the layout of apache-zookeeper-3.8.x-bin from the jars on this machine.
    const home = mkdtempSync(join(tmpdir(), 'gregor-zkhome-'));
    dirs.push(home);
    mkdirSync(join(home, 'lib'));
    mkdirSync(join(home, 'conf'));
    // Debian ships zookeeper-<version>.jar plus unversioned links; a release has only versioned names.
    const jars = readdirSync('/usr/share/java').filter((j) => j.endsWith('.jar') && j !== 'zookeeper.jar' && !/slf4j-(simple|jdk14|log4j12)/.test(j));
    expect(jars.some((j) => /^zookeeper-\d/.test(j))).toBe(true);
    for (const jar of jars) symlinkSync(join('/usr/share/java', jar), join(home, 'lib', jar));
    const install = findZooKeeper({ ZOOKEEPER_HOME: home });
    expect(install.classpath).toBe(`${home}/conf:${home}/lib/*`);
    const node = new ZooKeeperNode({ id: 1, dir: join(home, 'node'), clientPort: await freePort(), tickTime: 500, classpath: install.classpath, java: install.java });
    try {
      await node.start();
      expect(await node.mode()).toBe('standalone');
    } finally {
      await node.kill();
    }
  }, 60_000);
});
