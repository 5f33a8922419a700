import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';

/** Lowest port handed out: above the well-known and most registered service ports. */
const LOWEST = 10_000;

/**
 * The first port of the kernel's ephemeral range (ip_local_port_range, 32768 by default). Ports are chosen
 * below it: a port picked from the ephemeral range can be taken by any outgoing connection's local end before
 * the server it was picked for binds it (a ZooKeeper that cannot bind exits, silently with slf4j-nop).
 */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 0 ? low : 32_768;
  } catch {
    return 32_768; // not Linux: the IANA dynamic range starts at 49152, so this stays below it too
  }
}

function listen(server: Server, port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      if (error.code === 'EADDRINUSE' || error.code === 'EACCES') resolve(false);
      else reject(error);
    };
    server.once('error', onError);
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => {
      server.removeListener('error', onError);
      resolve(true);
    });
  });
}

/**
 * Ports free right now on 127.0.0.1, chosen at random below the ephemeral range (the OS's choice, port 0,
 * when that range leaves too little room); all are held open together so they are distinct.
 */
export async function freePorts(count: number): Promise<number[]> {
  const high = ephemeralLow() - 1;
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++) {
      let bound = false;
      for (let attempt = 0; attempt < 50 && !bound && high - LOWEST >= 1000; attempt++) {
        const server = createServer();
        if (await listen(server, LOWEST + Math.floor(Math.random() * (high - LOWEST + 1)))) {
          servers.push(server);
          bound = true;
        }
      }
      if (!bound) {
        const server = createServer();
        servers.push(server);
        await listen(server, 0);
      }
    }
    return servers.map((s) => {
      const address = s.address();
      if (address === null || typeof address === 'string') throw new Error('no TCP address');
      return address.port;
    });
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}

export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port!;
}
