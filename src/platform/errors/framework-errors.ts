import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError, InvalidRequestError, NotFoundError } from './api-errors';
import { envelope, toApiError } from './api-exception.filter';

/**
 * Fastify's `frameworkErrors`: what its router meets before any route (and so before Nest's
 * exception filter) runs. A URL that cannot be decoded is malformed (400); a path parameter
 * longer than Fastify's cap (100 characters, more than any id or token Herald issues) names
 * nothing that exists (404).
 */
export function answerFrameworkError(
  error: FastifyError,
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  const answer = frameworkAnswer(error);
  void reply.status(answer.status).send(envelope(answer));
}

function frameworkAnswer(error: FastifyError): ApiError {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return new InvalidRequestError('The URL could not be decoded.');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new NotFoundError('resource');
    default:
      return toApiError(error);
  }
}

/**
 * Node's `clientError`: a request Node's HTTP parser cannot read (oversized headers, a bad
 * request line, a body that ends early). There is no request to hand to a route, so the
 * answer is written on the socket directly, as Node and Fastify do by default, but in the
 * envelope and always 400 (not 431 or 408), and the connection closed.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const body = JSON.stringify(envelope(new InvalidRequestError(clientErrorMessage(error))));
    socket.write(
      `HTTP/1.1 400 ${STATUS_CODES[400]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy();
}

function clientErrorMessage(error: { code?: string }): string {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return 'The request headers are too large.';
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return 'The request did not arrive in time.';
    default:
      return 'The request could not be read as HTTP.';
  }
}
