import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import type { SMTPServerAddress, SMTPServerDataStream, SMTPServerSession } from 'smtp-server';
import { VerpAddresses } from '../message-refs/verp-address';
import { HeraldConfig } from '../platform/config/config';
import { CONFIG } from '../platform/config/config.module';
import { readBounded } from '../platform/mail/bounded-message';
import { ConnectionLimiter } from './connection-limiter';
import { AcceptedRecipient, InboundMailService } from './inbound-mail.service';
import { InboundStats } from './inbound-stats';
import { OpenConnections } from './open-connections';
import { SmtpListener } from '../platform/mail/smtp-listener';

/** Connections open at once, from everyone. */
export const MAX_CLIENTS = 50;
/** Connections open at once from one client address. */
export const CONNECTIONS_PER_ADDRESS = 5;
/** New connections per client address per minute. */
export const CONNECTIONS_PER_MINUTE = 60;
/** Mail transactions (MAIL FROM) on one connection; past it, 421 and the connection closes. */
export const MESSAGES_PER_CONNECTION = 100;
/** Recipients per message: a report has one; an unsubscribe mail, one or two. */
const MAX_RECIPIENTS = 10;

type SmtpError = Error & { responseCode: number };
function smtpError(code: number, message: string): SmtpError {
  return Object.assign(new Error(message), { responseCode: code });
}

/**
 * Herald's inbound SMTP port (INBOUND_SMTP_PORT; unset, it does not listen): the MX of
 * BOUNCE_DOMAIN points here. It accepts mail only for BOUNCE_DOMAIN (no relaying), refuses
 * forged tokens at RCPT, bounds size, connections and recipients, and answers 250 only once
 * the report is recorded, so a reporting server retries whatever Herald could not store.
 */
@Injectable()
export class InboundSmtpServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(InboundSmtpServer.name);
  private readonly limiter = new ConnectionLimiter(CONNECTIONS_PER_MINUTE);
  private readonly connections = new OpenConnections(
    CONNECTIONS_PER_ADDRESS,
    MESSAGES_PER_CONNECTION,
  );
  private maxBytes = 0;
  private readonly listener = new SmtpListener('inbound SMTP', this.logger);

  constructor(
    @Inject(CONFIG) private readonly config: HeraldConfig,
    private readonly verp: VerpAddresses,
    private readonly inbound: InboundMailService,
    private readonly stats: InboundStats,
  ) {}

  /** The port it listens on (useful with INBOUND_SMTP_PORT=0); undefined when off. */
  get port(): number | undefined {
    return this.listener.port;
  }

  async onApplicationBootstrap(): Promise<void> {
    const settings = this.config.deliverability.inboundSmtp;
    if (!settings) return;
    this.maxBytes = settings.maxBytes;
    // Loaded only where the port is on.
    const { SMTPServer } = await import('smtp-server');
    const server = new SMTPServer({
      name: this.config.bounceDomain,
      banner: 'Herald feedback mailbox',
      authOptional: true,
      // No certificate is configured: offering STARTTLS with a made-up one helps nobody.
      disabledCommands: ['AUTH', 'STARTTLS'],
      logger: false,
      // Announced in EHLO, so a sender that honours SIZE is refused at MAIL FROM; one that
      // does not is measured while it streams (onData).
      size: settings.maxBytes,
      maxClients: MAX_CLIENTS,
      socketTimeout: 60_000,
      closeTimeout: 5_000,
      onConnect: (session, callback) => {
        if (
          this.limiter.admit(session.remoteAddress) &&
          this.connections.admit(session.id, session.remoteAddress)
        ) {
          return callback();
        }
        this.stats.count('rate_limited');
        callback(smtpError(421, 'Too many connections, try again later'));
      },
      onClose: (session) => this.connections.release(session.id),
      onMailFrom: (_address, session, callback) => {
        if (this.connections.beginMail(session.id)) return callback();
        this.stats.count('rate_limited', 'messages per connection');
        callback(smtpError(421, 'Too many messages on this connection, reconnect'));
      },
      onRcptTo: (address, session, callback) => this.onRcptTo(address, session, callback),
      onData: (stream, session, callback) => {
        this.onData(stream, session).then(
          () => callback(null),
          (error: Error) => callback(error),
        );
      },
    });
    if (await this.listener.listen(server, settings)) {
      this.logger.log(`inbound SMTP for ${this.config.bounceDomain} on port ${this.port}`);
    }
  }

  onApplicationShutdown(): Promise<void> {
    return this.listener.close();
  }

  private onRcptTo(
    address: SMTPServerAddress,
    session: SMTPServerSession,
    callback: (error?: Error | null) => void,
  ): void {
    if (session.envelope.rcptTo.length >= MAX_RECIPIENTS) {
      callback(smtpError(452, 'Too many recipients'));
      return;
    }
    const parsed = this.verp.parse(address.address);
    if (parsed.valid) return callback();
    if (parsed.problem === 'foreign') {
      this.stats.count('foreign_recipient');
      return callback(smtpError(550, '5.7.1 Relaying denied'));
    }
    if (parsed.problem === 'forged') {
      this.stats.count('forged_token', 'at RCPT');
      return callback(smtpError(550, '5.1.1 No such recipient'));
    }
    // A plain mailbox at BOUNCE_DOMAIN (e.g. the address registered for a feedback loop).
    callback();
  }

  private async onData(stream: SMTPServerDataStream, session: SMTPServerSession): Promise<void> {
    const message = await readBounded(stream as AsyncIterable<Buffer>, this.maxBytes);
    if (!message || stream.sizeExceeded) {
      this.stats.count('too_large');
      throw smtpError(552, '5.3.4 Message too big');
    }
    const recipients: AcceptedRecipient[] = session.envelope.rcptTo.map(({ address }) => {
      const parsed = this.verp.parse(address);
      return parsed.valid ? { address, token: parsed } : { address };
    });
    try {
      await this.inbound.receive(message, recipients);
    } catch (error) {
      // Not recorded (the database is away?): a temporary failure, so the sender retries.
      this.logger.error(`inbound message not processed: ${String(error)}`);
      throw smtpError(451, '4.3.0 Temporary failure, try again later');
    }
  }
}
