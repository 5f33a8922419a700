export { ManagedProcess, killAllManagedProcesses, trackedProcessCount, type ManagedProcessOptions, type AttachOptions } from './managed-process.js';
export { ZooKeeperNode, ZOOKEEPER_CLASSPATH, type ZooKeeperNodeConfig } from './zookeeper-node.js';
export { ZooKeeperEnsemble, type ZooKeeperEnsembleConfig } from './zookeeper-ensemble.js';
export { renderZooCfg, type ZooCfg, type QuorumServer } from './zoo-cfg.js';
export { fourLetterWord, serverMode, type ZooKeeperMode } from './four-letter-word.js';
export { freePort, freePorts } from './free-port.js';
