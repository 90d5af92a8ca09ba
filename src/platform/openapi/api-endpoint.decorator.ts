import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtension, ApiOperation, ApiResponse } from '@nestjs/swagger';
import { ERROR_CODES, ErrorStatus } from '../errors/api-errors';

/**
 * Errors any /v1 operation can answer: bad syntax, no key, wrong scope, too fast, a crash, the
 * database briefly unreachable.
 */
export const ALWAYS_POSSIBLE_ERRORS = [400, 401, 403, 429, 500] as const;

/** Errors an operation answers only when its own work can meet them. */
export type OperationError = Exclude<ErrorStatus, (typeof ALWAYS_POSSIBLE_ERRORS)[number]>;

/** Marks the operations documented through ApiEndpoint; buildOpenApi removes it. */
export const ENDPOINT_MARK = 'x-herald-endpoint';

export interface EndpointDoc {
  /** The operationId a person would write: a verb and the resource (`listSubscribers`). */
  id: string;
  /** One line for the generated client's method and the reference page. */
  summary: string;
  description?: string;
  /** The success answer (or answers): status and body type (none for 204). */
  success: SuccessDoc | readonly SuccessDoc[];
  /** Statuses beyond 400, 401, 403, 429 and 500 this operation can answer. */
  errors?: readonly OperationError[];
  /**
   * Takes an `Idempotency-Key` request header and replays the first response with
   * `Idempotent-Replayed: true`; the key reused with another payload, or while its first
   * request is in progress, is a 409, so 409 need not be listed in `errors` as well.
   */
  idempotent?: boolean;
  /** A response body to show; without one, the document builds it from the schema's examples. */
  example?: unknown;
}

export interface SuccessDoc {
  status: 200 | 201 | 202 | 204;
  type?: Type | [Type];
  description?: string;
  /** A body that is not JSON (a CSV download): its media type, described as text. */
  mediaType?: 'text/csv';
}

const ERROR_MEANINGS: Record<ErrorStatus, string> = {
  400: 'Malformed request: bad syntax, a parameter that cannot be parsed, a missing required field.',
  401: 'The API key is missing, invalid, revoked or suspended.',
  403: 'The API key lacks the scope this operation requires.',
  404: 'The resource does not exist.',
  409: 'The request conflicts with the current state of the resource.',
  422: 'A field failed validation; `details` names each offending field.',
  429: 'A rate limit was exceeded; retry after `Retry-After` seconds.',
  500: 'A failure on the service side. When the database is briefly unreachable nothing was done, and `Retry-After` says when to try again.',
};

/**
 * Documents one public operation: its id, summary, success answer and every error status it
 * can return (each with the error envelope). The scope comes from the route scope table and
 * the rate-limit headers are added to every response when the document is built, so a route
 * decorated with this alone is fully documented.
 */
export function ApiEndpoint(doc: EndpointDoc): MethodDecorator {
  const successes: readonly SuccessDoc[] = isList(doc.success) ? doc.success : [doc.success];
  const own: readonly ErrorStatus[] = [
    ...(doc.idempotent ? [409 as const] : []),
    ...(doc.errors ?? []),
  ];
  const errors = [...new Set([...ALWAYS_POSSIBLE_ERRORS, ...own])].sort((a, b) => a - b);
  return applyDecorators(
    ApiOperation({ operationId: doc.id, summary: doc.summary, description: doc.description }),
    ...successes.map((success, index) =>
      success.mediaType
        ? ApiResponse({
            status: success.status,
            description: success.description ?? successMeaning(success.status),
            content: { [success.mediaType]: { schema: { type: 'string' } } },
          })
        : ApiResponse({
            status: success.status,
            type: success.type,
            description: success.description ?? successMeaning(success.status),
            ...(index === 0 && doc.example !== undefined ? { example: doc.example } : {}),
          }),
    ),
    ...errors.map((status) =>
      ApiResponse({
        status,
        description: `\`${ERROR_CODES[status]}\`: ${ERROR_MEANINGS[status]}`,
        schema: { $ref: '#/components/schemas/Error' },
      }),
    ),
    ApiExtension(ENDPOINT_MARK, { idempotent: doc.idempotent === true }),
  );
}

function isList(success: EndpointDoc['success']): success is readonly SuccessDoc[] {
  return Array.isArray(success);
}

function successMeaning(status: number): string {
  switch (status) {
    case 201:
      return 'Created.';
    case 202:
      return 'Accepted: the work continues in the background.';
    case 204:
      return 'Done; no body.';
    default:
      return 'OK.';
  }
}
