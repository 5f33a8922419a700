import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

/**
 * Registers @fastify/swagger; every route declared after it (inside a later `register`) lands in the
 * OpenAPI document with its JSON schemas. Swagger UI is served at /docs (assets bundled, no network),
 * the document itself at /docs/json and /docs/yaml.
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
  void app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });
}
