import { Injectable } from '@nestjs/common';
import { Principal } from '../auth/principal';
import { PgPool } from '../platform/database/pg-pool';
import { checkAgainstDto, MAX_DETAILS } from '../platform/errors/validation.pipe';
import { BatchResponse, BatchResultDto } from './subscriber-batch.dto';
import { BulkItem, BulkOutcome, SubscriberBulkWriter } from './subscriber-bulk-writer';
import { CreateSubscriberDto } from './subscriber.dto';

/**
 * POST /v1/subscribers/batch: each item checked against the rules of a single create, then
 * all the valid ones written by the bulk writer in one transaction. Apart from
 * SubscribersService because only the API uses it, and it is what needs the DTOs' validators
 * at run time: worker processes, which use SubscribersService, do not load them.
 */
@Injectable()
export class SubscriberBatches {
  constructor(
    private readonly pool: PgPool,
    private readonly bulk: SubscriberBulkWriter,
  ) {}

  /**
   * Creates or updates (by email, PATCH semantics) up to 1,000 subscribers in one
   * transaction. Each item is validated with the rules of a single create; an invalid item,
   * an erased email or a refused reactivation fails that item alone.
   */
  async upsert(caller: Principal, items: unknown[]): Promise<BatchResponse> {
    const results: BatchResultDto[] = new Array<BatchResultDto>(items.length);
    const valid: BulkItem[] = [];
    for (const [index, item] of items.entries()) {
      if (typeof item !== 'object' || item === null || Array.isArray(item)) {
        results[index] = failedItem(index, null, [NOT_AN_OBJECT]);
        continue;
      }
      const { instance, details } = await checkAgainstDto<CreateSubscriberDto>(
        CreateSubscriberDto,
        item as Record<string, unknown>,
      );
      if (details.length > 0)
        results[index] = failedItem(index, null, details.slice(0, MAX_DETAILS));
      else valid.push({ position: index, body: instance });
    }
    if (valid.length > 0) {
      const outcomes = await this.pool.transaction(async (client) => {
        const written = await this.bulk.write(client, valid, {
          mode: 'upsert',
          mergeCustomFields: false,
          actor: caller,
          endpoint: 'POST /v1/subscribers/batch',
          announce: 'changes',
        });
        return written;
      });
      for (const outcome of outcomes) results[outcome.position] = batchResult(outcome);
    }
    return { results };
  }
}

const NOT_AN_OBJECT = {
  field: 'body',
  code: 'invalid_type',
  message: 'Each item must be a subscriber object.',
};
const ERASED = {
  field: 'email',
  code: 'erased',
  message: 'This email address belongs to an erased identity and cannot be written to.',
};

function failedItem(
  index: number,
  id: string | null,
  errors: BatchResultDto['errors'],
): BatchResultDto {
  return { index, status: 'failed', id, errors };
}

function batchResult(outcome: BulkOutcome): BatchResultDto {
  const { position: index, id = null } = outcome;
  switch (outcome.status) {
    case 'created':
      return { index, status: 'created', id, errors: null };
    case 'updated':
    case 'unchanged':
      return { index, status: 'updated', id, errors: null };
    case 'erased':
      return failedItem(index, null, [ERASED]);
    case 'failed':
      return failedItem(index, id, outcome.errors ?? []);
  }
}
