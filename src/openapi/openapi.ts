import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ERROR_CODES } from '../platform/errors/api-errors';
import { requiredScope } from '../auth/scopes';
import { ENDPOINT_MARK } from '../platform/openapi/api-endpoint.decorator';
import { exampleOf } from '../platform/openapi/schema-example';
import { applyValidationLimits } from '../platform/openapi/validation-limits';

type Json = Record<string, unknown>;

export const SECURITY_SCHEME = 'apiKey';
export const SCOPE_EXTENSION = 'x-required-scope';

const ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', enum: Object.values(ERROR_CODES) },
        message: { type: 'string', description: 'For people; may change at any time.' },
        details: {
          type: 'array',
          description: 'Only on 422: one entry per offending field (at most 100).',
          items: {
            type: 'object',
            required: ['field', 'code', 'message'],
            properties: {
              field: { type: 'string', example: 'social_media[0].platform' },
              code: { type: 'string', example: 'already_exists' },
              message: { type: 'string' },
              line: {
                type: 'integer',
                minimum: 1,
                description:
                  'Only for a template field that does not compile (code `invalid_template`): ' +
                  'the line where it goes wrong, counted from 1. The message says it too.',
              },
              column: {
                type: 'integer',
                minimum: 1,
                description: 'With `line`: the column on that line, counted from 1.',
              },
            },
          },
        },
      },
    },
  },
  example: {
    error: {
      code: 'validation_failed',
      message: 'The request has invalid fields.',
      details: [{ field: 'email', code: 'already_exists', message: 'email already exists' }],
    },
  },
};

const integerHeader = (description: string) => ({
  description,
  schema: { type: 'integer', minimum: 0 },
});

const HEADERS = {
  'RateLimit-Limit': integerHeader('Requests allowed in the current window for this key.'),
  'RateLimit-Remaining': integerHeader('Requests left in the current window.'),
  'RateLimit-Reset': integerHeader('Seconds until the current window resets.'),
  'Retry-After': integerHeader('Seconds to wait before retrying.'),
  'Idempotent-Replayed': {
    description: 'Present (`true`) when this is the stored answer to an earlier identical request.',
    schema: { type: 'string', enum: ['true'] },
  },
};

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: the same key with the same payload within 24 hours replays the first ' +
    'response (with `Idempotent-Replayed: true`); with another payload, or while the first is ' +
    'still in progress, the answer is 409.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

/**
 * Which rate-limit headers an answer carries. Authentication counts every request on a budget
 * (the key's, or the address's when the key is bad), so from 401 on they are always there; a
 * 400, 404 or 500 may come before that point (a body that cannot be parsed, an unknown
 * route, a database that cannot be asked about the key).
 */
function rateLimitHeadersOf(status: number): 'always' | 'maybe' {
  if (status === 400 || status === 404 || status === 500) return 'maybe';
  return 'always';
}

/**
 * Builds the OpenAPI 3.1 document from the controllers (each public operation described by
 * @ApiEndpoint), then adds what the decorators cannot know: the scope from the one scope
 * table, the headers every answer carries, the limits the validators enforce, and an example
 * for every operation.
 */
export function buildOpenApi(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Herald API')
    .setDescription(
      'Email marketing and sending. Every `/v1` request carries `Authorization: Bearer ' +
        '<API key>`; each operation names the scope its key needs in `x-required-scope`. ' +
        'Every error uses one envelope, `{"error": {code, message, details}}`.',
    )
    .setVersion('v1')
    .setLicense('MIT', 'https://opensource.org/license/mit')
    // Relative: every installation serves its own document, so its base URL is the server.
    .addServer('/', 'This Herald installation')
    .addSecurity(SECURITY_SCHEME, {
      type: 'http',
      scheme: 'bearer',
      description:
        'An API key (`sk_live_` and 43 base64url characters), created in the dashboard ' +
        '(Account > API Keys) with the scopes it grants. It is an opaque secret, not a JWT.',
    })
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    // A route without @ApiEndpoint keeps Nest's `Controller_method` id, which the tests
    // refuse; documented routes set their own.
    operationIdFactory: (controller, method) => `${controller}_${method.replace(/\[\d+\]$/, '')}`,
  });
  // The domain controllers also answer under /dashboard/api for the dashboard's sessions:
  // that is the dashboard's private surface, not part of the public API's document.
  for (const path of Object.keys(document.paths)) {
    if (path.startsWith('/dashboard/')) delete document.paths[path];
  }
  const components = (document.components ??= {}) as Json;
  const schemas = (components.schemas ??= {}) as Record<string, Json>;
  schemas.Error = ERROR_SCHEMA;
  components.parameters = { IdempotencyKey: IDEMPOTENCY_KEY };
  applyValidationLimits(schemas);

  for (const [path, item] of Object.entries(document.paths)) {
    const routePath = path.replace(/\{(\w+)\}/g, ':$1');
    for (const [method, operation] of Object.entries(item) as [string, Json][]) {
      const scope = requiredScope(method, routePath);
      if (!scope) continue;
      describeOperation(operation, scope, schemas);
    }
  }
  return document;
}

function describeOperation(operation: Json, scope: string, schemas: Record<string, Json>): void {
  const mark = operation[ENDPOINT_MARK] as { idempotent: boolean } | undefined;
  delete operation[ENDPOINT_MARK];
  operation.security = [{ [SECURITY_SCHEME]: [] }];
  operation[SCOPE_EXTENSION] = scope;
  const needs = `Requires an API key with the \`${scope}\` scope.`;
  const own = typeof operation.description === 'string' ? operation.description : '';
  operation.description = own ? `${own}\n\n${needs}` : needs;
  if (mark?.idempotent) {
    operation.parameters = [
      ...((operation.parameters as Json[] | undefined) ?? []).filter(
        (parameter) => parameter.name !== IDEMPOTENCY_KEY.name,
      ),
      { $ref: '#/components/parameters/IdempotencyKey' },
    ];
  }
  for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
    const code = Number(status);
    const headers: Record<string, Json> = {};
    const rateLimit = rateLimitHeadersOf(code);
    for (const name of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']) {
      headers[name] = headerRef(name, rateLimit === 'always');
    }
    if (code === 429) headers['Retry-After'] = headerRef('Retry-After', true);
    // A 500 carries it only when the database was away (a retry will work).
    if (code === 500) headers['Retry-After'] = headerRef('Retry-After', false);
    if (mark?.idempotent && code < 300) {
      headers['Idempotent-Replayed'] = headerRef('Idempotent-Replayed', false);
    }
    response.headers = headers;
    const media = (response.content as Record<string, Json> | undefined)?.['application/json'];
    if (media && code < 300 && media.example === undefined && media.schema) {
      media.example = exampleOf(media.schema as Json, schemas);
    }
  }
}

/** A header as a reference, marked required where every such answer carries it. */
function headerRef(name: string, required: boolean): Json {
  // A Reference Object cannot carry `required` beside it, so each response gets a copy.
  return { ...HEADERS[name as keyof typeof HEADERS], required };
}

export function serveOpenApi(app: INestApplication): void {
  SwaggerModule.setup('docs', app, buildOpenApi(app), {
    jsonDocumentUrl: 'openapi.json',
    yamlDocumentUrl: 'openapi.yaml',
  });
}
