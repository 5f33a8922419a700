import { hostname } from 'node:os';
import type { FastifyRequest } from 'fastify';
import { AdminError } from './errors.js';

/** The host part of a Host header: `[::1]:8780` -> `::1`, `Broker1:8780` -> `broker1`. */
export function hostOf(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') < 0 ? undefined : h.indexOf(']'));
  const colon = h.lastIndexOf(':');
  return colon >= 0 && h.indexOf(':') === colon ? h.slice(0, colon) : h;
}

/** Names a browser may use for this broker by default: loopback, the bind address, advertised hosts, the machine's name. */
export function defaultAllowedHosts(httpHost: string, advertisedHosts: readonly string[]): string[] {
  const hosts = ['localhost', '127.0.0.1', '::1', hostname(), ...advertisedHosts];
  if (httpHost !== '' && httpHost !== '0.0.0.0' && httpHost !== '::') hosts.push(httpHost);
  return [...new Set(hosts.map((h) => h.toLowerCase()))];
}

/**
 * Guards against DNS rebinding: a web page on another origin that resolves its name to this machine
 * still sends its own name in Host. Requests naming a host outside the allowlist get 403 before any
 * route runs; `*` in the list turns the check off. Requests without Host (HTTP/1.0 tools) pass.
 */
export function requireAllowedHost(allowed: readonly string[]) {
  const set = new Set(allowed.map((h) => h.toLowerCase()));
  const any = set.has('*');
  return async (request: FastifyRequest): Promise<void> => {
    const header = request.headers.host;
    if (any || header === undefined || set.has(hostOf(header))) return;
    throw new AdminError('GREGOR_ERR_HOST_NOT_ALLOWED', `Host ${JSON.stringify(header)} is not allowed (http.allowed.hosts).`);
  };
}
