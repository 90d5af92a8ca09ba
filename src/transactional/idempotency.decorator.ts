import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { IDEMPOTENCY_HEADER, parseIdempotencyKey, REPLAYED_HEADER } from './idempotency-key';
import type { IdempotentOutcome } from './idempotent-requests';

/** The Idempotency-Key of a request to an idempotent route, and how its answer goes out. */
export interface IdempotentCall {
  /** The header's key: absent, or 1 to 255 characters (anything else was refused with 400). */
  readonly key: string | undefined;
  /** The outcome's status and body, with `Idempotent-Replayed: true` when it is a replay. */
  answer(outcome: IdempotentOutcome): unknown;
}

/**
 * The parameter of a route that creates something under an optional Idempotency-Key (the
 * transactional send, conversions, events): the parsed key for IdempotentRequests, and the
 * answer of its outcome, so every such route replays the same way.
 */
export const Idempotency = createParamDecorator(
  (_: unknown, context: ExecutionContext): IdempotentCall => {
    const http = context.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    return {
      key: parseIdempotencyKey(http.getRequest<FastifyRequest>().headers[IDEMPOTENCY_HEADER]),
      answer(outcome) {
        void reply.status(outcome.status);
        if (outcome.replayed) void reply.header(REPLAYED_HEADER, 'true');
        return outcome.body;
      },
    };
  },
);
