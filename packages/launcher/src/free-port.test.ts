import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePorts } from './free-port.js';

describe('freePorts', () => {
  it('hands out distinct ports below the ephemeral range that a server can bind at once', async () => {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    const ports = await freePorts(20);
    expect(new Set(ports).size).toBe(20);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(low);
    }
    const servers = ports.map(() => createServer());
    await Promise.all(servers.map((s, i) => new Promise<void>((resolve, reject) => s.once('error', reject).listen(ports[i], '127.0.0.1', resolve))));
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  });
});
