import { connect } from 'node:net';

/** One server of the ZooKeeper connect string, as its `srvr` four-letter command reports it. */
export interface ZooKeeperServerStatus {
  host: string;
  port: number;
  /** standalone, leader, follower or observer; null when the server is down or not serving (no quorum). */
  mode: string | null;
  version: string | null;
  /** Average request latency (ms) since the server started or its stats were reset. */
  latencyAvgMs: number | null;
  latencyMaxMs: number | null;
  connections: number | null;
  outstanding: number | null;
  zxid: string | null;
  nodeCount: number | null;
  /** Why nothing (or no Mode) was read. */
  error: string | null;
}

export interface ZooKeeperAddress {
  host: string;
  port: number;
}

const DEFAULT_CLIENT_PORT = 2181;

/** The servers and chroot of a connect string such as `zk1:2181,[::1]:2182/kafka`. */
export function parseConnectString(connectString: string): { servers: ZooKeeperAddress[]; chroot: string | null } {
  const slash = connectString.indexOf('/');
  const hosts = slash < 0 ? connectString : connectString.slice(0, slash);
  const chroot = slash < 0 ? null : connectString.slice(slash);
  const servers = hosts
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((s) => {
      const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(s);
      if (v6) return { host: v6[1]!, port: v6[2] ? Number(v6[2]) : DEFAULT_CLIENT_PORT };
      const colon = s.lastIndexOf(':');
      return colon < 0 ? { host: s, port: DEFAULT_CLIENT_PORT } : { host: s.slice(0, colon), port: Number(s.slice(colon + 1)) };
    });
  return { servers, chroot: chroot === '/' ? null : chroot };
}

/** Parses the answer to `srvr` (lines "Key: value"). */
export function parseSrvr(address: ZooKeeperAddress, answer: string): ZooKeeperServerStatus {
  const fields = new Map<string, string>();
  for (const line of answer.split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) fields.set(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  const num = (key: string) => {
    const v = fields.get(key);
    return v === undefined || v === '' || Number.isNaN(Number(v)) ? null : Number(v);
  };
  const latency = (fields.get('Latency min/avg/max') ?? '').split('/').map(Number);
  const mode = fields.get('Mode') ?? null;
  let error: string | null = null;
  if (answer === '') error = 'no answer (the server is down or unreachable)';
  else if (mode === null) error = answer.trim().split('\n')[0]!.slice(0, 200);
  return {
    ...address,
    mode,
    version: fields.get('Zookeeper version')?.split(',')[0] ?? null,
    latencyAvgMs: latency.length === 3 && !Number.isNaN(latency[1]) ? latency[1]! : null,
    latencyMaxMs: latency.length === 3 && !Number.isNaN(latency[2]) ? latency[2]! : null,
    connections: num('Connections'),
    outstanding: num('Outstanding'),
    zxid: fields.get('Zxid') ?? null,
    nodeCount: num('Node count'),
    error,
  };
}

/**
 * Sends `srvr` (ZooKeeper's four-letter command allowed by default since 3.5) and returns the whole
 * answer; '' when the server does not answer in time.
 */
export function srvr({ host, port }: ZooKeeperAddress, timeoutMs: number): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host, port });
    const timer = setTimeout(() => finish(''), timeoutMs);
    function finish(answer: string): void {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    }
    socket.on('connect', () => socket.write('srvr'));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('end', () => finish(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', () => finish(''));
  });
}

/** Every server of the connect string, asked in parallel. */
export async function ensembleStatus(connectString: string, timeoutMs = 2000): Promise<{ servers: ZooKeeperServerStatus[]; chroot: string | null }> {
  const { servers, chroot } = parseConnectString(connectString);
  return { servers: await Promise.all(servers.map(async (s) => parseSrvr(s, await srvr(s, timeoutMs)))), chroot };
}
