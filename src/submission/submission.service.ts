import { Injectable, Logger } from '@nestjs/common';
import { isEmail } from 'class-validator';
import type { KeyPrincipal } from '../auth/principal';
import { ApiKeysService } from '../auth/api-keys.service';
import { EmailErasedError } from '../erasure/erasure-errors';
import { ValidationFailedError } from '../platform/errors/api-errors';
import { RateLimiter } from '../platform/rate-limit/rate-limiter.service';
import { SharedStore } from '../platform/store/shared-store';
import { IdempotencyConflictError } from '../transactional/idempotent-requests';
import { TransactionalService } from '../transactional/transactional.service';
import { readSubmittedMessage } from './submitted-message';
import { replies, SmtpReply } from './submission-replies';

const SEND_SCOPE = 'transactional:send';
const MAX_ADDRESS_LENGTH = 254;

/**
 * What an SMTP session asks of Herald, in Herald's terms: who the password's key is, whether a
 * recipient can be mailed, and the send itself through TransactionalService, the same path as
 * POST /v1/transactional/send. Every refusal comes back as the SmtpReply to give.
 */
@Injectable()
export class SubmissionService {
  private readonly logger = new Logger(SubmissionService.name);

  constructor(
    private readonly keys: ApiKeysService,
    private readonly transactional: TransactionalService,
    private readonly rateLimiter: RateLimiter,
    private readonly store: SharedStore,
  ) {}

  /**
   * The key a password names, if it is active and may send; else the 535 to give. A key not in
   * the cache is read from PostgreSQL: with it away that is a 451, never a 535 (a client told
   * its credentials are wrong stops retrying and the application's mail is lost).
   */
  async authenticate(password: string): Promise<KeyPrincipal> {
    const key = await this.unlessAway(() => this.keys.authenticate(password.trim()));
    if (!key) throw replies.badCredentials();
    if (!key.scopes.includes(SEND_SCOPE)) throw replies.missingScope();
    return { accountId: key.accountId, apiKeyId: key.id, scopes: key.scopes };
  }

  /** Refuses (550) a recipient that is suppressed or erased, or not an address (553). */
  async checkRecipient(caller: KeyPrincipal, address: string): Promise<void> {
    if (address.length > MAX_ADDRESS_LENGTH || !isEmail(address)) throw replies.badRecipient();
    const refusal = await this.unlessAway(() => this.transactional.refusalFor(caller, address));
    if (refusal === 'suppressed') throw replies.suppressed();
    if (refusal === 'erased') throw replies.erased();
  }

  /** Sends a submitted message to its envelope recipients; the 250's text. */
  async submit(caller: KeyPrincipal, recipients: string[], data: Buffer): Promise<string> {
    const message = readSubmittedMessage(data);
    // The API takes sends with the shared store away (the rate limit falls back to a count in
    // this process, the sweep queues the job later); an SMTP client can keep the message and
    // retry, so it is told 451 until the key's rate is counted where every process sees it.
    if (!this.store.connected()) throw replies.unavailable();
    // Each recipient is one send, counted as the API counts one.
    for (let i = 0; i < recipients.length; i++) {
      const verdict = await this.unlessAway(() =>
        this.rateLimiter.consume(caller.apiKeyId, 'send', caller.accountId),
      );
      if (!verdict.allowed) throw replies.rateLimited(Math.max(1, verdict.resetSeconds));
    }
    try {
      const { ids } = await this.transactional.submitMime(
        caller,
        { from: message.from, recipients, subject: message.subject, mime: message.mime },
        message.idempotencyKey,
      );
      return `queued as ${ids.join(',')}`;
    } catch (error) {
      throw this.replyFor(error);
    }
  }

  private replyFor(error: unknown): SmtpReply {
    if (error instanceof SmtpReply) return error;
    if (error instanceof IdempotencyConflictError) {
      return error.stillInProgress ? replies.keyInProgress() : replies.keyReused();
    }
    if (error instanceof EmailErasedError) return replies.erased();
    if (error instanceof ValidationFailedError) {
      const details = error.details;
      const detail = details.map((d) => d.message).join('; ');
      if (details.some((d) => d.field === 'from')) return replies.unverifiedFrom(detail);
      if (details.some((d) => d.code === 'suppressed')) return replies.suppressed();
      return replies.refused(detail);
    }
    this.logger.error({ err: error }, 'a submitted message could not be taken');
    return replies.unavailable();
  }

  /** A store that does not answer is a 451: the client keeps the message and retries. */
  private async unlessAway<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      this.logger.warn(`SMTP submission: a store did not answer: ${String(error)}`);
      throw replies.unavailable();
    }
  }
}
