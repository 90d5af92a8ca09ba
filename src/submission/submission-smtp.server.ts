import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import type { SMTPServerDataStream, SMTPServerSession } from 'smtp-server';
import type { KeyPrincipal } from '../auth/principal';
import { readBounded } from '../platform/mail/bounded-message';
import { HeraldConfig } from '../platform/config/config';
import { CONFIG } from '../platform/config/config.module';
import { AddressWindow } from './address-window';
import { replies, SmtpReply } from './submission-replies';
import { loadSubmissionTls } from './submission-tls';
import { SubmissionService } from './submission.service';
import {
  AUTH_FAILURE_WINDOW_MS,
  AUTH_FAILURES_PER_ADDRESS,
  CONNECTIONS_PER_ADDRESS,
  CONNECTIONS_PER_MINUTE,
  MAX_CLIENTS,
  MAX_RECIPIENTS,
  SOCKET_TIMEOUT_MS,
} from './submission.settings';
import { SmtpListener } from '../platform/mail/smtp-listener';

/**
 * SMTP submission for applications that only speak SMTP (SUBMISSION_SMTP_PORT; unset, it does
 * not listen). STARTTLS, then AUTH PLAIN or LOGIN with an API key as the password; each
 * envelope recipient becomes one transactional message (SubmissionService). Refusals:
 * 538 AUTH before TLS and 530 MAIL before AUTH (smtp-server's own checks), 535
 * a bad key, 421 too many failed logins or connections, 452 past 50 recipients, 550 at RCPT a
 * suppressed or erased recipient, 552 too large, 550 after DATA what no retry changes, 451
 * what may pass.
 */
@Injectable()
export class SubmissionSmtpServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(SubmissionSmtpServer.name);
  private readonly authFailures = new AddressWindow(AUTH_FAILURE_WINDOW_MS);
  private readonly connectionsLastMinute = new AddressWindow(60_000);
  private readonly open = new Map<string, number>();
  private readonly listener = new SmtpListener('SMTP submission', this.logger);

  constructor(
    @Inject(CONFIG) private readonly config: HeraldConfig,
    private readonly submission: SubmissionService,
  ) {}

  /** The port it listens on (useful with SUBMISSION_SMTP_PORT=0); undefined when off. */
  get port(): number | undefined {
    return this.listener.port;
  }

  async onApplicationBootstrap(): Promise<void> {
    const settings = this.config.submission;
    if (!settings) return;
    const hostname = new URL(this.config.publicUrl).hostname;
    const tls = await loadSubmissionTls(settings, hostname, this.logger);
    const { SMTPServer } = await import('smtp-server');
    const server = new SMTPServer({
      name: hostname,
      banner: 'Herald SMTP submission',
      ...tls,
      authMethods: ['PLAIN', 'LOGIN'],
      authRequiredMessage:
        'Authentication required: AUTH PLAIN or LOGIN (after STARTTLS) with an API key as the password',
      disabledCommands: [],
      logger: false,
      size: settings.maxBytes,
      maxClients: MAX_CLIENTS,
      socketTimeout: SOCKET_TIMEOUT_MS,
      closeTimeout: 5_000,
      onConnect: (session, callback) => callback(this.admit(session)),
      onClose: (session) => this.release(session),
      onAuth: (auth, session, callback) => {
        this.authenticate(auth.password ?? '', session).then(
          (user) => callback(null, { user }),
          (error: Error) => callback(error),
        );
      },
      onRcptTo: (address, session, callback) => {
        this.checkRecipient(address.address, session).then(
          () => callback(),
          (error: Error) => callback(error),
        );
      },
      onData: (stream, session, callback) => {
        this.onData(stream, session).then(
          (queued) => callback(null, queued),
          (error: Error) => callback(error),
        );
      },
    });
    if (await this.listener.listen(server, settings)) {
      this.logger.log(`SMTP submission on port ${this.port}`);
    }
  }

  onApplicationShutdown(): Promise<void> {
    return this.listener.close();
  }

  /** An address that failed too many logins, or holds or opened too many connections: 421. */
  private admit(session: SMTPServerSession): SmtpReply | undefined {
    const address = session.remoteAddress;
    if (this.authFailures.count(address) >= AUTH_FAILURES_PER_ADDRESS) {
      return replies.tooManyAuthFailures(AUTH_FAILURE_WINDOW_MS / 60_000);
    }
    const open = this.open.get(address) ?? 0;
    if (
      open >= CONNECTIONS_PER_ADDRESS ||
      this.connectionsLastMinute.add(address) > CONNECTIONS_PER_MINUTE
    ) {
      return replies.tooManyConnections();
    }
    this.open.set(address, open + 1);
    (session as SessionState).counted = true;
    return undefined;
  }

  private release(session: SMTPServerSession): void {
    if (!(session as SessionState).counted) return;
    const open = (this.open.get(session.remoteAddress) ?? 1) - 1;
    if (open > 0) this.open.set(session.remoteAddress, open);
    else this.open.delete(session.remoteAddress);
  }

  private async authenticate(password: string, session: SMTPServerSession): Promise<KeyPrincipal> {
    const address = session.remoteAddress;
    const minutes = AUTH_FAILURE_WINDOW_MS / 60_000;
    if (this.authFailures.count(address) >= AUTH_FAILURES_PER_ADDRESS) {
      throw replies.tooManyAuthFailures(minutes);
    }
    try {
      return await this.submission.authenticate(password);
    } catch (error) {
      // Only a refused credential counts; a store that did not answer is nobody's failure.
      if (!(error instanceof SmtpReply) || error.responseCode !== 535) throw error;
      if (this.authFailures.add(address) >= AUTH_FAILURES_PER_ADDRESS) {
        throw replies.tooManyAuthFailures(minutes);
      }
      throw error;
    }
  }

  private async checkRecipient(address: string, session: SMTPServerSession): Promise<void> {
    if (session.envelope.rcptTo.length >= MAX_RECIPIENTS) {
      throw replies.tooManyRecipients(MAX_RECIPIENTS);
    }
    await this.submission.checkRecipient(callerOf(session), address);
  }

  private async onData(stream: SMTPServerDataStream, session: SMTPServerSession): Promise<string> {
    const maxBytes = this.config.submission!.maxBytes;
    const data = await readBounded(stream as AsyncIterable<Buffer>, maxBytes);
    if (!data || stream.sizeExceeded) throw replies.tooLarge(maxBytes);
    const recipients = session.envelope.rcptTo.map((rcpt) => rcpt.address);
    return this.submission.submit(callerOf(session), recipients, data);
  }
}

/** Whether onConnect counted the session among its address's open connections. */
type SessionState = SMTPServerSession & { counted?: boolean };

/** The key the session logged in with (smtp-server refuses MAIL before AUTH with 530). */
function callerOf(session: SMTPServerSession): KeyPrincipal {
  const user: unknown = session.user;
  return user as KeyPrincipal;
}
