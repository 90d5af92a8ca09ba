import { applyDecorators } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import { DEFAULT_LIMIT, MAX_LIMIT } from './page-request';

/** Documents the `limit` and `cursor` query parameters every list endpoint takes. */
export function ApiPageQuery(): MethodDecorator {
  return applyDecorators(
    ApiQuery({
      name: 'limit',
      required: false,
      schema: { type: 'integer', default: DEFAULT_LIMIT },
      description: `Items per page, clamped into 1..${MAX_LIMIT} (not refused); non-numeric → 400.`,
    }),
    ApiQuery({
      name: 'cursor',
      required: false,
      type: String,
      description: 'The `next_cursor` of the previous page (opaque, bound to the account).',
    }),
  );
}
