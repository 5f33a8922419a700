import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AdminError } from './errors.js';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

/**
 * Reads that show data rather than metadata need the token too: record contents
 * (GET /v1/topics/T/partitions/P/records) and the SCRAM users.
 */
export function isProtectedRead(url: string): boolean {
  const path = url.split('?')[0]!;
  return /^\/v1\/topics\/[^/]+\/partitions\/[^/]+\/records\/?$/.test(path) || /^\/v1\/users(\/|$)/.test(path);
}

/**
 * An onRequest hook that requires `Authorization: Bearer <token>` on every write and on the
 * protected reads, and lets other reads through. It runs before the body is read, so an
 * unauthenticated client cannot make the broker parse anything. Tokens are compared by hash in
 * constant time.
 */
export function requireToken(token: string) {
  const expected = digest(token);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (READ_METHODS.has(request.method) && !isProtectedRead(request.url)) return;
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? BEARER.exec(header) : null;
    if (!match) {
      void reply.header('www-authenticate', 'Bearer realm="gregor-admin"');
      throw new AdminError('GREGOR_ERR_UNAUTHORIZED', 'This operation needs an Authorization: Bearer <token> header.');
    }
    if (!timingSafeEqual(digest(match[1]!), expected)) throw new AdminError('GREGOR_ERR_FORBIDDEN', 'The bearer token is not valid for this broker.');
  };
}

/** @deprecated name kept for callers of the first version: the same hook. */
export const requireTokenForWrites = requireToken;

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}
