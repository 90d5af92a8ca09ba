import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../database/database-unavailable';
import {
  ApiError,
  ERROR_CODES,
  ErrorStatus,
  RateLimitedError,
  ServiceUnavailableError,
} from './api-errors';

/**
 * Retry-After of a 500 while the database is away: PostgreSQL restarting takes seconds; clients that wait this long
 * between tries neither hammer it nor wait long after it is back.
 */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

/**
 * The one place where errors become responses. Whatever was thrown (a domain error, a Nest
 * or Fastify HTTP error, a Prisma error, a bug), the client gets the error envelope with
 * one of its eight statuses; internals are logged with the request id, never sent. (The
 * errors Fastify meets before a route runs are answered in framework-errors.ts, with the
 * same envelope.)
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('ApiExceptionFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const error = toApiError(exception);

    if (error instanceof ServiceUnavailableError) {
      // An outage, not a bug: one line per request, no stack.
      this.logger.warn(
        { requestId: request.id, method: request.method, url: request.url },
        `database unavailable: ${exception instanceof Error ? exception.message : String(exception)}`,
      );
    } else if (error.status === 500) {
      this.logger.error(
        { err: exception, requestId: request.id, method: request.method, url: request.url },
        'unhandled error',
      );
    }
    if (error instanceof RateLimitedError || error instanceof ServiceUnavailableError) {
      void reply.header('Retry-After', String(error.retryAfterSeconds));
    }
    void reply.status(error.status).send(envelope(error));
  }
}

/** The body of every error response: `{"error": {code, message, details}}`. */
export function envelope(error: ApiError): {
  error: { code: string; message: string; details: ApiError['details'] };
} {
  return { error: { code: error.code, message: error.message, details: error.details } };
}

export function toApiError(exception: unknown): ApiError {
  if (exception instanceof ApiError) return exception;
  if (isDatabaseUnavailable(exception)) {
    return new ServiceUnavailableError(UNAVAILABLE_RETRY_AFTER_SECONDS);
  }
  const status = httpStatusOf(exception);
  if (status === undefined || status >= 500) {
    return new ApiError(500, 'Something went wrong on our side. It has been logged.');
  }
  const mapped = mapClientStatus(status);
  return new ApiError(mapped, clientMessage(exception, mapped));
}

/** Nest's HttpException and Fastify's own errors (bad JSON, body too large) carry a status. */
function httpStatusOf(exception: unknown): number | undefined {
  if (exception instanceof HttpException) return exception.getStatus();
  const statusCode = (exception as { statusCode?: unknown } | null)?.statusCode;
  return typeof statusCode === 'number' ? statusCode : undefined;
}

/**
 * Only the API's eight error statuses go out: other client errors (405, 413, 415…) are
 * malformed requests.
 */
function mapClientStatus(status: number): ErrorStatus {
  if (status === 405) return 404;
  return status in ERROR_CODES ? (status as ErrorStatus) : 400;
}

function clientMessage(exception: unknown, status: ErrorStatus): string {
  if (status === 404) return 'No such route.';
  if (status === 401) return 'The API key is missing, invalid, revoked or suspended.';
  const message = exception instanceof Error ? exception.message : '';
  return message || 'The request is malformed.';
}
