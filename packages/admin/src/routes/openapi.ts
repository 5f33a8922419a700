import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';

/**
 * Registers @fastify/swagger; every route declared after it (inside a later `register`) lands in the
 * OpenAPI document with its JSON schemas. GET /docs serves that document as JSON.
 */
export function registerOpenApi(app: FastifyInstance): void {
  void app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'gregor broker admin API',
        description: 'HTTP administration of a gregor cluster through one of its brokers. Errors: docs/errors.md. Writes need `Authorization: Bearer <token>` when a token is configured.',
        version: '1',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
  });
}

export function docsRoutes(app: FastifyInstance): void {
  app.get('/docs', { schema: { hide: true } as object }, async () => (app as unknown as { swagger(): object }).swagger());
}
