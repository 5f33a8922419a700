import { existsSync, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Where the ZooKeeper server classes come from, and the java that runs them. */
export interface ZooKeeperInstall {
  classpath: string;
  java: string;
  /** How it was found, for messages. */
  source: string;
}

/** Thrown when no ZooKeeper installation is found; the message says how to get one. */
export class ZooKeeperNotFoundError extends Error {}

const DEBIAN_JAR = '/usr/share/java/zookeeper.jar';
/** Unpacked Apache releases and package managers' layouts: each holds the server jar and its dependencies in lib/. */
const KNOWN_HOMES = ['/opt/zookeeper', '/usr/local/zookeeper', '/opt/homebrew/opt/zookeeper/libexec', '/usr/local/opt/zookeeper/libexec'];

/**
 * Finds ZooKeeper's jars: ZOOKEEPER_CLASSPATH as given; else ZOOKEEPER_HOME (an unpacked Apache
 * release: lib/*.jar); else Debian's package (/usr/share/java/zookeeper.jar, whose manifest pulls in
 * its dependencies); else the usual install folders. Java is JAVA_HOME/bin/java, else /usr/bin/java,
 * else `java` on the PATH. Throws ZooKeeperNotFoundError with instructions when nothing is there.
 */
export function findZooKeeper(env: NodeJS.ProcessEnv = process.env, exists: (path: string) => boolean = existsSync): ZooKeeperInstall {
  const java = env.JAVA_HOME && exists(join(env.JAVA_HOME, 'bin', 'java')) ? join(env.JAVA_HOME, 'bin', 'java') : exists('/usr/bin/java') ? '/usr/bin/java' : 'java';
  if (env.ZOOKEEPER_CLASSPATH) return { classpath: env.ZOOKEEPER_CLASSPATH, java, source: 'ZOOKEEPER_CLASSPATH' };
  if (env.ZOOKEEPER_HOME) {
    const classpath = releaseClasspath(env.ZOOKEEPER_HOME, exists);
    if (!classpath) throw new ZooKeeperNotFoundError(`ZOOKEEPER_HOME=${env.ZOOKEEPER_HOME} holds no ZooKeeper jars (expected an unpacked apache-zookeeper-*-bin release with lib/zookeeper-*.jar)`);
    return { classpath, java, source: `ZOOKEEPER_HOME=${env.ZOOKEEPER_HOME}` };
  }
  if (exists(DEBIAN_JAR)) {
    // slf4j-simple (at WARN, see ZooKeeperNode) so a server that cannot start says why in its log; nop stays silent.
    const slf4j = ['/usr/share/java/slf4j-simple.jar', '/usr/share/java/slf4j-nop.jar'].find((j) => exists(j));
    return { classpath: slf4j ? `${DEBIAN_JAR}${delimiter}${slf4j}` : DEBIAN_JAR, java, source: "Debian's zookeeper package" };
  }
  for (const home of KNOWN_HOMES) {
    const classpath = releaseClasspath(home, exists);
    if (classpath) return { classpath, java, source: home };
  }
  throw new ZooKeeperNotFoundError(
    "ZooKeeper's jars were not found. Install Debian's package (apt-get install zookeeper), or unpack an Apache ZooKeeper " +
      'release (apache-zookeeper-3.8.x-bin.tar.gz) and set ZOOKEEPER_HOME to it, or set ZOOKEEPER_CLASSPATH.',
  );
}

function releaseClasspath(home: string, exists: (path: string) => boolean): string | null {
  const lib = join(home, 'lib');
  if (!exists(lib)) return null;
  let jars: string[];
  try {
    jars = readdirSync(lib);
  } catch {
    return null;
  }
  if (!jars.some((j) => /^zookeeper-\d.*\.jar$/.test(j))) return null;
  // conf/ first so a release's logback.xml / log4j.properties applies; then every jar (java's lib/* wildcard).
  return [join(home, 'conf'), join(lib, '*')].join(delimiter);
}
