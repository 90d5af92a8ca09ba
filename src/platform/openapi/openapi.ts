import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ERROR_CODES } from '../errors/api-errors';
import { requiredScope } from '../../auth/scopes';

const ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', enum: Object.values(ERROR_CODES) },
        message: { type: 'string' },
        details: {
          type: 'array',
          description: 'Only on 422: one entry per offending field.',
          items: {
            type: 'object',
            required: ['field', 'code', 'message'],
            properties: {
              field: { type: 'string' },
              code: { type: 'string', example: 'already_exists' },
              message: { type: 'string' },
            },
          },
        },
      },
    },
  },
} as const;

/**
 * Builds the OpenAPI document from the controllers, then adds what the decorators cannot
 * know: each operation's scope (from the one scope table) and the error envelope.
 */
export function buildOpenApi(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Herald API')
    .setDescription(
      'Email marketing and sending. Every /v1 request needs `Authorization: Bearer sk_live_…`.',
    )
    .setVersion('v1')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'sk_live_ API key' })
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    // A controller with two paths gets "list[0]"-style method keys; the document keeps only
    // the /v1 one, so its operationIds stay the plain Controller_method form.
    operationIdFactory: (controller, method, version) =>
      [controller, method.replace(/\[\d+\]$/, ''), version].filter(Boolean).join('_'),
  });
  // The domain controllers also answer under /dashboard/api for the dashboard's sessions:
  // that is the dashboard's private surface, not part of the public API's document.
  for (const path of Object.keys(document.paths)) {
    if (path.startsWith('/dashboard/')) delete document.paths[path];
  }
  document.components = document.components ?? {};
  document.components.schemas = { ...document.components.schemas, Error: ERROR_SCHEMA as never };

  for (const [path, item] of Object.entries(document.paths)) {
    const routePath = path.replace(/\{(\w+)\}/g, ':$1');
    for (const [method, operation] of Object.entries(item) as [string, Record<string, unknown>][]) {
      const scope = requiredScope(method, routePath);
      if (!scope) continue;
      operation.security = [{ bearer: [scope] }];
      operation.description = `Requires scope \`${scope}\`.`;
      const responses = (operation.responses ?? {}) as Record<string, unknown>;
      for (const [status, code] of Object.entries(ERROR_CODES)) {
        responses[status] ??= {
          description: code,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        };
      }
      operation.responses = responses;
    }
  }
  return document;
}

export function serveOpenApi(app: INestApplication): void {
  SwaggerModule.setup('docs', app, buildOpenApi(app), {
    jsonDocumentUrl: 'openapi.json',
    yamlDocumentUrl: 'openapi.yaml',
  });
}
