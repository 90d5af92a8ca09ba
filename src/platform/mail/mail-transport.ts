import { Inject, Injectable, Logger, Module, OnModuleDestroy, Optional } from '@nestjs/common';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import nodemailer from 'nodemailer';
import type { SendMailOptions, Transporter } from 'nodemailer';
import type MailMessage from 'nodemailer/lib/mailer/mail-message';
import { HeraldConfig } from '../config/config';
import { CONFIG } from '../config/config.module';
import { HeraldMetrics } from '../metrics/herald-metrics';
import { parseMailbox } from '../validation/mailbox';
import { DkimKey, dkimSigned } from './dkim-signature';
import { ComposedMime, composeMime, MimeContent } from './mime-composer';
import { MayFinish, SendSlots } from './send-slots';

export type { MayFinish };

/** A message to send: its content (as MIME composes it) and how Herald handles it. */
export interface OutgoingMessage extends Omit<MimeContent, 'messageId'> {
  /**
   * A unique id for this message (e.g. newId()). The Message-ID header becomes
   * `<messageId@domain of from>`; an id already in angle brackets is used as it is.
   */
  messageId: string;
  /**
   * Folder key for stored copies (outbox mode): e.g. the subscriber id, so erasing a person
   * deletes their folder. Messages without one go to `misc`.
   */
  storageKey?: string;
  /**
   * The key to sign this message with (its sender domain's); replaces the operator-wide
   * DKIM_* key, which signs only messages that bring none.
   */
  dkim?: DkimKey;
  /**
   * The envelope sender (MAIL FROM, the Return-Path), where bounce reports go: a VERP address
   * naming this message. The From address when absent.
   */
  envelopeFrom?: string;
  /**
   * A message its author composed whole (SMTP submission): sent as these bytes, signed and
   * given the envelope like any other; subject, html, text and headers are then unused, and
   * `messageId` should be the Message-ID header it carries.
   */
  raw?: Buffer;
}

export interface DeliveryReceipt {
  /** The Message-ID header as sent, angle brackets included. */
  messageId: string;
  /** The server's final reply (`250 …`), or where the copy was written. */
  response: string;
}

/**
 * Why a message did not go out. `permanent` (an SMTP 5xx) means retrying cannot help: record
 * it as failed. Anything else (4xx, connection refused or dropped, timeouts) may succeed later.
 */
export class MailDeliveryError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
    readonly responseCode?: number,
  ) {
    super(message);
    this.name = 'MailDeliveryError';
  }
}

/** A message abandoned before its end was sent: it never reached the relay. */
class Abandoned extends Error {}

/** SMTP pool size when SMTP_URL does not say (`?maxConnections=N`). */
const DEFAULT_POOL_SIZE = 8;

/**
 * Where every message leaves Herald. With SMTP_URL: one pooled nodemailer SMTP transport per
 * process, closed on shutdown; DKIM-signed with the message's own key (its sender domain's), else
 * with the operator-wide key when DKIM_DOMAIN and a key are configured. Without it: RFC 5322 `.eml` files built by nodemailer itself,
 * under `outboxDir/<storageKey or misc>/<messageId>.eml`, so a self-hosted install works
 * before it has a relay, and erasure can delete a person's copies by folder.
 */
@Injectable()
export class MailTransport implements OnModuleDestroy {
  private readonly logger = new Logger(MailTransport.name);
  private readonly smtp: Transporter | undefined;
  private warming: Promise<void> | undefined;
  private readonly composer: Transporter | undefined;
  private readonly operatorKey: DkimKey | undefined;
  /** Messages handed to the relay and not answered yet, and connection openings under way. */
  private inFlight = 0;
  private openings = 0;
  /**
   * Messages this process can have in SMTP transactions at once (the pool's connections):
   * senders that must know when a message really starts hand it over no faster than this.
   */
  readonly connections: number;

  constructor(
    @Inject(CONFIG) private readonly config: HeraldConfig,
    // Absent where a transport is built by hand (unit tests, tools): nothing is timed then.
    @Optional() private readonly metrics?: HeraldMetrics,
  ) {
    // DKIM signs every message when configured; stored copies are signed as well, so they
    // are byte for byte what a relay would have received.
    const dkim = config.dkim && {
      domainName: config.dkim.domain,
      keySelector: config.dkim.selector,
      privateKey: config.dkim.privateKey,
    };
    this.operatorKey = dkim || undefined;
    if (config.smtpUrl) {
      const options = smtpPoolOptions(config.smtpUrl);
      this.smtp = nodemailer.createTransport({ ...options, dkim });
      this.connections = options.maxConnections;
    } else {
      this.composer = nodemailer.createTransport({ streamTransport: true, buffer: true, dkim });
      this.connections = DEFAULT_POOL_SIZE;
    }
  }

  async send(message: OutgoingMessage): Promise<DeliveryReceipt> {
    const messageId = messageIdHeader(message.messageId, message.from);
    return this.deliver(message, messageId, composedOf(message, messageId));
  }

  /**
   * Sends through nodemailer (which signs and sends the bytes composed here in one pass, or
   * composes them itself where composeMime declined), or stores the copy without a relay.
   */
  private deliver(
    message: OutgoingMessage,
    messageId: string,
    composed: ComposedMime | undefined,
  ): Promise<DeliveryReceipt> {
    const mail: SendMailOptions = composed
      ? {
          raw: composed.raw,
          messageId,
          dkim: message.dkim,
          envelope: { from: message.envelopeFrom ?? composed.fromAddress, to: message.to },
        }
      : {
          from: message.from,
          to: message.to,
          subject: message.subject,
          html: message.html ?? undefined,
          text: message.text ?? undefined,
          headers: message.headers,
          messageId,
          dkim: message.dkim,
          envelope: message.envelopeFrom
            ? { from: message.envelopeFrom, to: message.to }
            : undefined,
        };
    if (this.smtp) return this.counted(this.sendSmtp(this.smtp, mail, messageId));
    return this.writeToOutbox(mail, messageId, message);
  }

  /**
   * Sends like `send`, except that the message's end waits for `mayFinish` (see MayFinish),
   * so a sender can hold back the moment a message becomes the relay's until it is ready to
   * record it, without holding back the rest of the transaction. Resolves undefined when the
   * message was abandoned. A message is signed before it starts, so the wait never holds up
   * signing; without a relay (outbox) the wait comes first.
   */
  async sendWhen(
    message: OutgoingMessage,
    mayFinish: MayFinish,
  ): Promise<DeliveryReceipt | undefined> {
    const messageId = messageIdHeader(message.messageId, message.from);
    const composed = composedOf(message, messageId);
    if (!this.smtp || !composed) {
      return (await mayFinish()) ? this.deliver(message, messageId, composed) : undefined;
    }
    const key = message.dkim ?? this.operatorKey;
    const bytes = key ? await dkimSigned(composed.raw, key) : composed.raw;
    // The pool sends a message again over a new connection when a reused one turns out closed
    // (a 421) before its data: each try reads a stream of its own, and the end is asked once.
    let answer: Promise<boolean> | undefined;
    const askOnce = () => (answer ??= mayFinish());
    let data: Readable | undefined;
    const stream = () => (data = heldBackEnd(bytes, askOnce));
    const envelope = { from: message.envelopeFrom ?? composed.fromAddress, to: [message.to] };
    const smtp = this.smtp;
    try {
      const info = await this.counted(
        new Promise<{ response?: string }>((resolve, reject) =>
          smtp.transporter.send(composedMail(envelope, messageId, stream), (error, sent) =>
            error ? reject(error) : resolve(sent as { response?: string }),
          ),
        ),
      );
      return { messageId, response: info.response ?? '' };
    } catch (error) {
      if (data?.errored instanceof Abandoned) return undefined;
      throw classify(error);
    }
  }

  /**
   * Opens the pool's connections ahead of the messages when it has none in use, so that the
   * first message of a send does not wait for a connection and the relay's greeting (a relay
   * may pause before it: smtp-server waits 100 ms, to catch clients that talk too soon). Each
   * opening is an entry without a recipient: the pool connects and says EHLO, nodemailer
   * refuses the empty envelope before sending any command, and the pool resets the session
   * (RSET) and keeps the connection. A relay closes idle connections after its timeout, so
   * call this when a send starts, not once. Failures are left for the real messages to meet.
   */
  openConnections(): void {
    if (!this.smtp || this.inFlight > 0 || this.openings > 0) return;
    for (let i = 0; i < this.connections; i++) {
      const opening = composedMail({ from: '', to: [] }, '', () => Readable.from([]));
      this.openings++;
      this.smtp.transporter.send(opening, () => this.openings--);
    }
  }

  /**
   * Opens an SMTP connection and says EHLO, so the first real message does not pay for it;
   * a failure is only logged (the relay may come up later). Once per process, however many
   * warm-ups ask.
   */
  warmUp(): Promise<void> {
    this.warming ??= this.smtp
      ? this.smtp.verify().then(
          () => undefined,
          (error: unknown) => this.logger.warn(`SMTP relay not reachable yet: ${String(error)}`),
        )
      : Promise.resolve();
    return this.warming;
  }

  /** The folder holding the stored copies under a storage key (see OutgoingMessage). */
  storageFolder(storageKey: string | undefined): string {
    return join(this.config.outboxDir, safeName(storageKey ?? 'misc'));
  }

  onModuleDestroy(): void {
    this.smtp?.close();
    this.composer?.close();
  }

  private async sendSmtp(
    smtp: Transporter,
    mail: SendMailOptions,
    messageId: string,
  ): Promise<DeliveryReceipt> {
    try {
      const info = (await smtp.sendMail(mail)) as { response?: string };
      return { messageId, response: info.response ?? '' };
    } catch (error) {
      throw classify(error);
    }
  }

  private async counted<T>(sending: Promise<T>): Promise<T> {
    this.inFlight++;
    const answered = this.metrics?.startSend();
    try {
      return await sending;
    } finally {
      answered?.();
      this.inFlight--;
    }
  }

  private async writeToOutbox(
    mail: SendMailOptions,
    messageId: string,
    message: OutgoingMessage,
  ): Promise<DeliveryReceipt> {
    const composed = (await this.composer!.sendMail(mail)) as { message: Buffer };
    // The Return-Path header a receiving server would add: the stored copy shows the
    // envelope sender a relay would have been given.
    const info = message.envelopeFrom
      ? {
          message: Buffer.concat([
            Buffer.from(`Return-Path: <${message.envelopeFrom}>\r\n`),
            composed.message,
          ]),
        }
      : composed;
    const folder = this.storageFolder(message.storageKey);
    const file = join(folder, `${safeName(message.messageId)}.eml`);
    await mkdir(folder, { recursive: true });
    // Write then rename, so a crash never leaves half a message that looks complete.
    const partial = `${file}.partial`;
    await writeFile(partial, info.message);
    await rename(partial, file);
    this.logger.debug(`stored ${file}`);
    return { messageId, response: `stored ${file}` };
  }
}

function smtpPoolOptions(smtpUrl: string) {
  const url = new URL(smtpUrl);
  const poolSize = Number(url.searchParams.get('maxConnections') ?? DEFAULT_POOL_SIZE);
  return {
    pool: true as const,
    host: url.hostname,
    port: url.port ? Number(url.port) : url.protocol === 'smtps:' ? 465 : 25,
    secure: url.protocol === 'smtps:',
    auth: url.username
      ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) }
      : undefined,
    maxConnections: Number.isInteger(poolSize) && poolSize > 0 ? poolSize : DEFAULT_POOL_SIZE,
    // Nodemailer reconnects every 100 messages by default; a campaign sends far more.
    maxMessages: Infinity,
  };
}

/**
 * The bytes to send: a message given whole (`raw`, as its client wrote it) goes as it is;
 * otherwise composeMime writes it, or declines and leaves it to nodemailer (undefined).
 */
function composedOf(message: OutgoingMessage, messageId: string): ComposedMime | undefined {
  return message.raw
    ? { raw: message.raw, fromAddress: parseMailbox(message.from) ?? message.from }
    : composeMime({ ...message, messageId });
}

/**
 * A finished message in the shape nodemailer's SMTP pool takes from its own composer (what its
 * transport interface hands over: the envelope, the Message-ID and a stream of the bytes). The
 * bytes are composed and signed already, so going through nodemailer's composer would only
 * copy them through a MIME tree of one raw node: a tenth of a campaign message's CPU.
 * A retry over a new connection asks for everything again: `stream` gives a fresh stream of
 * the bytes on every call, and the envelope is a fresh copy each time (a connection records
 * its refusals on the envelope it was given, and the next try would inherit them).
 */
function composedMail(
  envelope: { from: string; to: string[] },
  messageId: string,
  stream: () => Readable,
): MailMessage {
  const message = {
    getEnvelope: () => ({ from: envelope.from, to: [...envelope.to] }),
    messageId: () => messageId,
    getHeader: (name: string) => (name.toLowerCase() === 'message-id' ? messageId : undefined),
    createReadStream: stream,
  };
  return { data: {}, message } as unknown as MailMessage;
}

/**
 * A stream of the message that gives everything at once but its end, which waits until the
 * transport wants more (the bytes are on their way) and `mayFinish` agrees; a refusal (or a
 * failure of the check) destroys it with Abandoned.
 */
function heldBackEnd(bytes: Buffer, mayFinish: MayFinish): Readable {
  let given = false;
  let asked = false;
  const data = new Readable({
    read() {
      if (!given) {
        given = true;
        this.push(bytes);
        return;
      }
      if (asked) return;
      asked = true;
      mayFinish().then(
        (finish) => (finish ? data.push(null) : data.destroy(new Abandoned('abandoned'))),
        () => data.destroy(new Abandoned('abandoned')),
      );
    },
  });
  return data;
}

/** SMTP 5xx is permanent; 4xx, envelope and connection trouble may pass on a retry. */
function classify(error: unknown): MailDeliveryError {
  const details = (error ?? {}) as { message?: string; responseCode?: number; code?: string };
  const message = withoutAddresses(details.message ?? String(error));
  const responseCode = typeof details.responseCode === 'number' ? details.responseCode : undefined;
  if (responseCode !== undefined) {
    return new MailDeliveryError(message, responseCode >= 500, responseCode);
  }
  // An address nodemailer itself refuses (no valid recipient) will never be accepted.
  return new MailDeliveryError(message, details.code === 'EENVELOPE');
}

/** Longest relay reply kept: enough for any SMTP reply line, and it bounds the scan below. */
const MAX_REPLY_CHARS = 1000;

/**
 * A relay's reply without the addresses it quotes ("550 5.1.1 <ada@example.com>: no such
 * user"). The error's message is also its stack trace's first line, and both outlive the send
 * in job queues (BullMQ keeps a retrying job's failed reason and stack trace) and in logs, where
 * an erasure cannot reach: so an address never enters them.
 */
export function withoutAddresses(reply: string): string {
  return reply
    .slice(0, MAX_REPLY_CHARS)
    .split(/(\s+)/)
    .map((word) => (word.includes('@') ? '[address]' : word))
    .join('');
}

export function messageIdHeader(id: string, from: string): string {
  if (id.startsWith('<') && id.endsWith('>')) return id;
  const domain = /@([^\s>@]+)>?\s*$/.exec(from)?.[1] ?? 'herald.invalid';
  return `<${id}@${domain}>`;
}

/** File and folder names come from ids, but never trust them to hold no path separators. */
function safeName(value: string): string {
  return value.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_') || '_';
}

/** The transport and its slots: one of each per process, whichever modules send. */
@Module({
  providers: [
    MailTransport,
    {
      provide: SendSlots,
      useFactory: (transport: MailTransport) => new SendSlots(transport.connections),
      inject: [MailTransport],
    },
  ],
  exports: [MailTransport, SendSlots],
})
export class MailModule {}
