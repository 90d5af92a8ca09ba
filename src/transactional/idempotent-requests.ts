import { Injectable, Logger } from '@nestjs/common';
import { KeyedHasher } from '../platform/crypto/keyed-hasher';
import type { AccountId } from '../platform/database/account-id';
import type { ComposedStatement, Relation } from '../platform/database/composed-statement';
import type { Db } from '../platform/database/db';
import { ConflictError } from '../platform/errors/api-errors';
import { payloadFingerprint } from './idempotency-key';
import { IdempotencyKeysRepository, StoredResponse } from './idempotency-keys.repository';

/** An answer to store: its body must be plain JSON. */
export interface AnyResponse {
  status: number;
  body: unknown;
}

/** An answer, and whether it replays the key's first one. */
export interface IdempotentOutcome {
  status: number;
  body: unknown;
  replayed: boolean;
}

/**
 * How `work` stores its answer under the key, together with what it created: called inside
 * its Prisma transaction, or added as a part of its composed statement (`addTo`, then
 * `confirm` with the rows the part wrote). Without a key there is nothing to store: each does
 * nothing and `addTo` adds no part.
 */
export interface KeyCompletion {
  (tx: Db, response: AnyResponse): Promise<void>;
  /** The part, written only when `after` holds a row; the relation of the key it completed. */
  addTo(
    statement: ComposedStatement,
    response: AnyResponse,
    after: Relation<never>,
  ): Relation<never> | undefined;
  /** Throws the conflict unless the part completed the key (another request took it over). */
  confirm(completedRows: number): void;
}

/** The same key with another payload, or while its first request is still in progress. */
export class IdempotencyConflictError extends ConflictError {
  /** `stillInProgress`: the same payload, whose first request has not finished yet. */
  constructor(readonly stillInProgress = false) {
    super(
      'The request conflicts with an earlier request using this Idempotency-Key (another payload, or still in progress).',
    );
  }
}

/**
 * The Idempotency-Key mechanism of every endpoint that creates something (the transactional
 * send, conversions): one table, one claim and one replay rule. Keys are the
 * account's, whatever the endpoint: the payload's fingerprint names the endpoint, so a key
 * reused on another endpoint is a 409 like one reused with another payload.
 */
@Injectable()
export class IdempotentRequests {
  private readonly logger = new Logger(IdempotentRequests.name);

  constructor(
    private readonly keys: IdempotencyKeysRepository,
    private readonly hasher: KeyedHasher,
  ) {}

  /**
   * Without a key: `work` runs. With one: the first request claims it and runs `work`, which
   * must call `complete` inside the transaction that stores what it created; a repeat with
   * the same payload replays that answer; anything else is a 409, `conflict()` (an endpoint
   * with other 409 causes answers them all alike), told whether the key's first request, with
   * the same payload, is still running.
   */
  async run(
    accountId: AccountId,
    endpoint: string,
    key: string | undefined,
    payload: unknown,
    token: string,
    work: (complete: KeyCompletion) => Promise<AnyResponse>,
    conflict: (stillInProgress: boolean) => ConflictError = (stillInProgress) =>
      new IdempotencyConflictError(stillInProgress),
  ): Promise<IdempotentOutcome> {
    if (key === undefined) {
      const response = await work(NO_KEY);
      return { ...response, replayed: false };
    }
    const fingerprint = payloadFingerprint(this.hasher, endpoint, payload);
    const claim = await this.keys.claim(accountId, key, fingerprint, token);
    if (!claim.claimed) {
      const response = claim.held?.fingerprint === fingerprint ? claim.held.response : undefined;
      if (!response) throw conflict(claim.held?.fingerprint === fingerprint);
      return { status: response.status, body: response.body, replayed: true };
    }
    try {
      // Our claim lapsed and another request took the key over: it answers for the key.
      const lapsed = () => conflict(false);
      const completion: KeyCompletion = Object.assign(
        async (tx: Db, stored: AnyResponse) => {
          if (!(await this.keys.complete(accountId, key, token, stored as StoredResponse, tx))) {
            throw lapsed();
          }
        },
        {
          addTo: (statement: ComposedStatement, stored: AnyResponse, after: Relation<never>) =>
            this.keys.addCompletion(
              statement,
              accountId,
              key,
              token,
              stored as StoredResponse,
              after,
            ),
          confirm: (completedRows: number) => {
            if (completedRows !== 1) throw lapsed();
          },
        },
      );
      const response = await work(completion);
      return { ...response, replayed: false };
    } catch (error) {
      // A request that failed leaves nothing behind: the client may retry with the same key.
      await this.keys.release(accountId, key, token).catch((e: unknown) => {
        this.logger.warn({ err: e }, 'could not release an idempotency key; its lease will');
      });
      throw error;
    }
  }
}

const NO_KEY: KeyCompletion = Object.assign(() => Promise.resolve(), {
  addTo: () => undefined,
  confirm: () => undefined,
});
