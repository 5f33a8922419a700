import { existsSync } from 'node:fs';
import fastifyStatic from '@fastify/static';
import { CONSOLE_ASSETS_DIR, CONSOLE_CSP, CONSOLE_CSS, consolePage } from '@gregor/console';
import type { FastifyInstance } from 'fastify';
import { AdminError, errorBody } from '../errors.js';

const hidden = { schema: { hide: true } as object };

/**
 * The web console at /ui: its page and stylesheet, and its browser modules (packages/console's
 * dist/browser) through @fastify/static. Everything it shows comes from this server's /v1 routes.
 * Same-origin only (CSP), no caching of the page so a new broker version serves a new console.
 */
export function consoleRoutes(app: FastifyInstance): void {
  const page = consolePage();
  app.addHook('onSend', async (request, reply) => {
    if (!request.url.startsWith('/ui')) return;
    void reply.header('content-security-policy', CONSOLE_CSP).header('x-content-type-options', 'nosniff').header('referrer-policy', 'no-referrer');
  });
  // Relative, so that a proxy mounting the admin API under a prefix keeps working.
  app.get('/ui', hidden, async (_request, reply) => reply.redirect('ui/', 302));
  app.get('/ui/', hidden, async (_request, reply) => reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(page));
  app.get('/ui/app.css', hidden, async (_request, reply) => reply.type('text/css; charset=utf-8').header('cache-control', 'no-cache').send(CONSOLE_CSS));
  if (existsSync(CONSOLE_ASSETS_DIR)) {
    void app.register(fastifyStatic, {
      root: CONSOLE_ASSETS_DIR,
      prefix: '/ui/js/',
      decorateReply: false,
      index: false,
      schemaHide: true,
      cacheControl: true,
      maxAge: 0,
      // The compiled modules and their source maps only (not the .d.ts files tsc writes beside them).
      allowedPath: (path) => /^\/[\w./-]+\.js(\.map)?$/.test(path) && !path.includes('..'),
    });
  } else {
    app.get('/ui/js/*', hidden, async (_request, reply) => {
      const error = new AdminError('GREGOR_ERR_BROKER_NOT_READY', `The console is not built (no ${CONSOLE_ASSETS_DIR}): run npx tsc -b.`);
      return reply.code(error.statusCode).send(errorBody(error));
    });
  }
}
