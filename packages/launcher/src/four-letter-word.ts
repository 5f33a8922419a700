import { connect } from 'node:net';

/**
 * Sends a ZooKeeper four-letter command (`srvr`, `ruok`, `mntr`, ...) and returns the whole answer.
 * Resolves with '' when the port does not answer in time, so callers can poll it.
 */
export function fourLetterWord(port: number, command: string, timeoutMs = 2000, host = '127.0.0.1'): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host, port });
    const timer = setTimeout(() => finish(''), timeoutMs);
    function finish(answer: string): void {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    }
    socket.on('connect', () => socket.write(command));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('end', () => finish(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', () => finish(''));
  });
}

export type ZooKeeperMode = 'standalone' | 'leader' | 'follower' | 'observer';

/** The `Mode:` of a server from `srvr`, or null when it is down or not serving (no quorum). */
export async function serverMode(port: number, timeoutMs = 2000): Promise<ZooKeeperMode | null> {
  const answer = await fourLetterWord(port, 'srvr', timeoutMs);
  const match = /^Mode: (\w+)/m.exec(answer);
  return match ? (match[1] as ZooKeeperMode) : null;
}
