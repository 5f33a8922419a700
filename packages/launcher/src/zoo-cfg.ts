/** One server line of an ensemble: `server.<id>=127.0.0.1:<peerPort>:<electionPort>`. */
export interface QuorumServer {
  id: number;
  peerPort: number;
  electionPort: number;
}

export interface ZooCfg {
  tickTime: number;
  initLimit: number;
  syncLimit: number;
  dataDir: string;
  clientPort: number;
  /** Empty for a standalone server. */
  servers: QuorumServer[];
}

/** zoo.cfg text for ZooKeeper 3.8, bound to 127.0.0.1, every four-letter word allowed, no admin server. */
export function renderZooCfg(cfg: ZooCfg): string {
  const lines = [
    `tickTime=${cfg.tickTime}`,
    `initLimit=${cfg.initLimit}`,
    `syncLimit=${cfg.syncLimit}`,
    `dataDir=${cfg.dataDir}`,
    `clientPort=${cfg.clientPort}`,
    'clientPortAddress=127.0.0.1',
    'maxClientCnxns=0',
    '4lw.commands.whitelist=*',
    'admin.enableServer=false',
    'autopurge.snapRetainCount=3',
    'autopurge.purgeInterval=1',
    ...cfg.servers.map((s) => `server.${s.id}=127.0.0.1:${s.peerPort}:${s.electionPort}`),
  ];
  return `${lines.join('\n')}\n`;
}
