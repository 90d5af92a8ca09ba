import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ParsedMail } from 'mailparser';
import { createHash } from 'node:crypto';
import { Principal } from '../auth/principal';
import { SenderDomainsService } from '../domains/sender-domains.service';
import { ErasureGuard } from '../erasure/erasure-guard';
import { isUuid, newId } from '../platform/crypto/ids';
import type { HeraldConfig } from '../platform/config/config';
import { CONFIG } from '../platform/config/config.module';
import type { AccountId } from '../platform/database/account-id';
import type { ComposedStatement, Relation } from '../platform/database/composed-statement';
import type { PgClient } from '../platform/database/db';
import { ConflictError, NotFoundError } from '../platform/errors/api-errors';
import { EmailErasedError } from '../erasure/erasure-errors';
import {
  AnyResponse,
  IdempotentOutcome,
  IdempotentRequests,
  KeyCompletion,
} from './idempotent-requests';
import { canonicalJson } from './idempotency-key';
import { TransactionalContent } from './transactional-content';
import { NewMessage, TransactionalMessagesRepository } from './transactional-messages.repository';
import { SuppressionList, suppressedError } from '../suppression/suppression-list';
import { SubscribersService } from '../subscribers/subscribers.service';
import { TransactionalQueue } from './transactional-queue';
import { SendTransactionalDto, TransactionalAcceptedResponse } from './transactional.dto';
import { presentMessage, TransactionalMessageResponse } from './transactional.presenter';
import { withinDeadline } from '../platform/queue/within-deadline';
import { messageIdHeader } from '../platform/mail/mail-transport';
import { rawMessageId, withMessageId } from '../platform/mail/raw-headers';
import { MessageLog } from '../messages/message-log';
import { ENQUEUE_DEADLINE_MS } from '../platform/settings';

const ENDPOINT = 'POST /v1/transactional/send';
const SUBMISSION = 'SMTP submission';
const ACCEPTED = 202;

/**
 * A message submitted over SMTP: the client's own MIME, to be sent to each envelope recipient
 * as one transactional message.
 */
export interface MimeSubmission {
  /** The From header's mailbox: it must be on a verified sender domain. */
  from: string;
  /** Envelope recipients, each one message. */
  recipients: string[];
  /** For the message log. */
  subject: string;
  /** The message as the client wrote it, Bcc and Herald's own headers removed. */
  mime: Buffer;
}

/** Why a recipient cannot be mailed, found before the message is taken. */
export type RecipientRefusal = 'suppressed' | 'erased';

/** The outcome of a send call: the response to give, and whether it is a replay. */
export type SendOutcome = IdempotentOutcome;

/**
 * The three 409 causes of this endpoint (key reused with another payload, first request
 * still in progress, erased recipient) get one and the same response, so it never reveals
 * that a recipient is erased; a client tells them apart by retrying with backoff (README,
 * "Transactional sends and idempotency").
 */
export class TransactionalConflictError extends ConflictError {
  constructor() {
    super(
      'The request conflicts with an earlier request using this Idempotency-Key, ' +
        'or with the state of the recipient.',
    );
  }
}

@Injectable()
export class TransactionalService {
  private readonly logger = new Logger(TransactionalService.name);

  constructor(
    @Inject(CONFIG) private readonly config: HeraldConfig,
    private readonly messages: TransactionalMessagesRepository,
    private readonly idempotent: IdempotentRequests,
    private readonly content: TransactionalContent,
    private readonly erasureGuard: ErasureGuard,
    private readonly queue: TransactionalQueue,
    private readonly suppressions: SuppressionList,
    private readonly senderDomains: SenderDomainsService,
    private readonly subscribers: SubscribersService,
    private readonly messageLog: MessageLog,
  ) {}

  async get(caller: Principal, id: string): Promise<TransactionalMessageResponse> {
    const row = isUuid(id) ? await this.messages.findById(caller.accountId, id) : null;
    if (!row) throw new NotFoundError('transactional message');
    return presentMessage(row);
  }

  /**
   * Without a key: store the message, enqueue it, 202. With a key: IdempotentRequests claims
   * it first; a key held by another request replays its response or is a 409. The message
   * row and the key's response commit together, so a crash leaves either nothing (the claim's
   * lease runs out and the key is free again) or a queued message that the sweep enqueues.
   */
  async send(caller: Principal, body: SendTransactionalDto, key?: string): Promise<SendOutcome> {
    const messageId = newId();
    return this.idempotent.run(
      caller.accountId,
      ENDPOINT,
      key,
      body,
      messageId,
      (complete) => this.accept(caller, body, messageId, complete),
      () => new TransactionalConflictError(),
    );
  }

  /**
   * Whether a recipient can be mailed, asked before the message is sent in (an SMTP RCPT): a
   * suppressed address, or an erased identity (audited like a refused named write), cannot.
   */
  async refusalFor(caller: Principal, email: string): Promise<RecipientRefusal | undefined> {
    const { accountId } = caller;
    // Both asked at once: an SMTP client waits on this answer at every RCPT.
    const [erased, suppressed] = await Promise.all([
      this.erasureGuard.isErased(accountId, email),
      this.suppressions.find(accountId, email),
    ]);
    if (erased) {
      await this.erasureGuard.refuse(
        caller,
        this.erasureGuard.emailHash(accountId, email),
        SUBMISSION,
      );
      return 'erased';
    }
    return suppressed ? 'suppressed' : undefined;
  }

  /**
   * The send of a message composed by its client (SMTP submission): the same rules as
   * `send` (verified From, suppression, erasure, idempotency), one stored message per
   * recipient, sent as the client's bytes. The ids in recipient order; a replay gives the
   * first submission's. A message without a Message-ID gets one, made from its first id.
   */
  async submitMime(
    caller: Principal,
    submission: MimeSubmission,
    key?: string,
  ): Promise<{ ids: string[]; replayed: boolean }> {
    const { accountId } = caller;
    const ids = submission.recipients.map(() => newId());
    // Parsing the message is only worth it when there is a key to compare it under.
    const payload =
      key === undefined
        ? undefined
        : {
            recipients: submission.recipients,
            content: await submissionDigest(submission.mime),
          };
    const outcome = await this.idempotent.run(
      accountId,
      SUBMISSION,
      key,
      payload,
      ids[0],
      async (complete) => {
        await this.senderDomains.assertCanSendFrom(accountId, submission.from);
        const mime = withMessageId(submission.mime, messageIdHeader(ids[0], submission.from));
        const response = { status: ACCEPTED, body: { ids } };
        await this.erasureGuard.runNamedWrite(
          caller,
          submission.recipients,
          SUBMISSION,
          async (tx) => {
            for (const [i, to] of submission.recipients.entries()) {
              await this.suppressions.assertNotSuppressed(accountId, to, `recipients[${i}]`, tx);
              await this.messages.create(
                accountId,
                {
                  id: ids[i],
                  apiKeyId: caller.apiKeyId ?? null,
                  templateId: null,
                  recipientHash: this.erasureGuard.emailHash(accountId, to),
                  toAddress: to,
                  fromAddress: submission.from,
                  subject: submission.subject,
                  html: null,
                  text: null,
                  mime: new Uint8Array(mime),
                },
                tx,
              );
              await this.messageLog.record(tx, accountId, {
                id: ids[i],
                source: 'transactional',
                recipient: to,
                from: submission.from,
                subject: submission.subject,
                messageId: rawMessageId(mime) ?? null,
              });
            }
            await complete(tx, response);
          },
        );
        // After commit, as in `accept`: a failed enqueue is left to the sweep.
        await withinDeadline(
          this.queue.enqueue(ids.map((id) => ({ accountId, id }))),
          ENQUEUE_DEADLINE_MS,
          `submitted messages ${ids[0]}…'s jobs`,
        ).catch((error: unknown) => {
          this.logger.warn(
            `submission ${ids[0]}: enqueue failed, the sweep will retry it: ${String(error)}`,
          );
        });
        return response;
      },
    );
    return { ids: (outcome.body as { ids: string[] }).ids, replayed: outcome.replayed };
  }

  /**
   * Checks what the request may send (From, content), renders it, and writes it (see
   * writeAccepted); enqueues its job once that committed.
   */
  private async accept(
    caller: Principal,
    body: SendTransactionalDto,
    messageId: string,
    complete: KeyCompletion,
  ): Promise<AnyResponse> {
    const { accountId } = caller;
    await this.senderDomains.assertCanSendFrom(accountId, body.from);
    const prepared = await this.content.prepare(accountId, body);
    // Read before the identity's lock: were the subscriber erased meanwhile, the write refuses.
    const recipient =
      prepared.kind === 'template' ? await this.subscribers.findByEmail(accountId, body.to) : null;
    const rendered = await this.content.render(prepared, body.to, recipient);
    const response = {
      status: ACCEPTED,
      body: { id: messageId, status: 'queued' } satisfies TransactionalAcceptedResponse,
    };
    const message: NewMessage = {
      id: messageId,
      apiKeyId: caller.apiKeyId ?? null,
      templateId: prepared.kind === 'template' ? prepared.templateId : null,
      recipientHash: this.erasureGuard.emailHash(accountId, body.to),
      toAddress: body.to,
      fromAddress: body.from,
      subject: rendered.subject,
      html: rendered.html,
      text: rendered.text,
    };
    let listedAs: string | null;
    try {
      listedAs = await this.erasureGuard.runComposedNamedWrite(
        caller,
        [body.to],
        ENDPOINT,
        (client, statement, erased) =>
          this.writeAccepted(client, statement, erased, {
            accountId,
            message,
            subscriberId: recipient?.id ?? null,
            response,
            complete,
          }),
      );
    } catch (error) {
      // Refused and audited by the guard; answered like the other two causes.
      if (error instanceof EmailErasedError) throw new TransactionalConflictError();
      throw error;
    }
    // A bounced, complaining or unsubscribed address is not mailed: 422 on `to`.
    if (listedAs !== null) throw suppressedError('to', listedAs);
    // After commit. If this fails, or Redis does not answer in time, the message is still
    // durable and queued: the sweep adds the job later, so the client's 202 holds.
    await withinDeadline(
      this.queue.enqueue([{ accountId, id: messageId }]),
      ENQUEUE_DEADLINE_MS,
      `message ${messageId}'s job`,
    ).catch((error: unknown) => {
      this.logger.warn(
        `message ${messageId}: enqueue failed, the sweep will retry it: ${String(error)}`,
      );
    });
    return response;
  }

  /**
   * The message's row, its message log record and the key's answer, in one composed statement
   * on the erasure guard's transaction (whose BEGIN locked the recipient's identity): three
   * round trips in all. Nothing is written for a recipient erased (`erased`) or suppressed;
   * answers who was erased, and why the address is listed, if it is.
   */
  private async writeAccepted(
    client: PgClient,
    statement: ComposedStatement,
    erased: Relation<'email_hash'>,
    accepted: {
      accountId: AccountId;
      message: NewMessage;
      subscriberId: string | null;
      response: AnyResponse;
      complete: KeyCompletion;
    },
  ): Promise<{ erased: string | null; result: string | null }> {
    const { accountId, message, complete } = accepted;
    const listed = this.suppressions.addListed(statement, accountId, message.toAddress);
    const created = this.messages.addCreated(statement, accountId, message, [erased, listed]);
    // The message log's record: the 202's id is its id.
    this.messageLog.addRecord(
      statement,
      accountId,
      {
        id: message.id,
        source: 'transactional',
        recipient: message.toAddress,
        from: message.fromAddress,
        subject: message.subject,
        messageId: messageIdHeader(message.id, message.fromAddress),
        subscriberId: accepted.subscriberId,
      },
      created,
    );
    const completed = complete.addTo(statement, accepted.response, created);
    const query = statement.build(
      `SELECT (SELECT email_hash FROM ${erased.name} LIMIT 1) AS erased,
              (SELECT reason FROM ${listed.name}) AS listed_as,
              (SELECT count(*)::int FROM ${created.name}) AS created,
              ${completed ? `(SELECT count(*)::int FROM ${completed.name})` : '0'} AS completed`,
      { named: this.config.database.namedStatements },
    );
    const [row] = (await client.query<AcceptedRow>(query)).rows;
    // Thrown inside the transaction: the message is rolled back when the key was taken over.
    if (row.created === 1) complete.confirm(row.completed);
    return { erased: row.erased, result: row.erased === null ? row.listed_as : null };
  }
}

/** What the accept statement found and wrote. */
interface AcceptedRow {
  erased: string | null;
  listed_as: string | null;
  created: number;
  completed: number;
}

/**
 * What makes two submissions the same message for an Idempotency-Key: what it says (its
 * addresses, subject, parts and attachments), not its bytes, which a mail library writes
 * anew on each attempt (Message-ID, Date, part boundaries); so a client's retry of the same
 * message replays, as the API's retry of the same body does.
 */
async function submissionDigest(mime: Buffer): Promise<string> {
  // Loaded on the first submission: the parser and its charset tables are a worker's largest
  // module (5 MiB of heap) and only SMTP submission needs them on this path.
  const { simpleParser } = await import('mailparser');
  const parsed = await simpleParser(mime, { skipHtmlToText: true, skipTextToHtml: true });
  const text = (value: ParsedMail['to']) => [value ?? []].flat().map((address) => address.text);
  const content = canonicalJson({
    from: parsed.from?.text,
    to: text(parsed.to),
    cc: text(parsed.cc),
    replyTo: parsed.replyTo?.text,
    subject: parsed.subject,
    text: parsed.text,
    html: parsed.html || undefined,
    attachments: parsed.attachments.map((a) => [a.filename, a.contentType, a.checksum]),
  });
  return createHash('sha256').update(content).digest('base64');
}
