import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { InvalidRequestError, NotFoundError } from '../errors/api-errors';
import { hasInvalidCharacters } from './text-integrity';

/**
 * A Fastify preValidation hook: NUL characters and unpaired surrogates decoded from the URL
 * never reach a handler (PostgreSQL would refuse them mid-query). In a query parameter they
 * make the request malformed (400); in a path parameter they name nothing (404).
 */
export function refuseInvalidUrlText(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  done(invalidUrlText(request));
}

function invalidUrlText(request: FastifyRequest): Error | undefined {
  for (const [name, value] of Object.entries((request.query ?? {}) as Record<string, unknown>)) {
    if (hasInvalidCharacters(name) || [value].flat().some(isInvalidText)) {
      return new InvalidRequestError(
        'A query parameter contains a NUL character or an unpaired surrogate.',
      );
    }
  }
  const params = Object.values((request.params ?? {}) as Record<string, unknown>);
  return params.some(isInvalidText) ? new NotFoundError('resource') : undefined;
}

function isInvalidText(value: unknown): boolean {
  return typeof value === 'string' && hasInvalidCharacters(value);
}
