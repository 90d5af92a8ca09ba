import { Inject, Injectable, Logger } from '@nestjs/common';
import { KeyObject } from 'node:crypto';
import { FeedbackService } from '../feedback/feedback.service';
import { MessageLocator } from '../feedback/message-locator';
import { HeraldConfig } from '../platform/config/config';
import { CONFIG } from '../platform/config/config.module';
import { ApiError, NotFoundError } from '../platform/errors/api-errors';
import { mailgunEvents, verifyMailgun } from './mailgun';
import { postmarkEvents, verifyPostmark } from './postmark';
import { Provider, ProviderEvent, UnverifiedNotification } from './provider-event';
import { sendgridEvents, sendgridKey, verifySendgrid } from './sendgrid';
import { MailgunTokens } from './signature-window';
import { parseSnsMessage, sesEvents, verifySnsSignature } from './ses';
import { CertificateUnavailable, fetchPem, SnsCertificates } from './sns-certificates';

/** A notification as it arrived: what verification needs. */
export interface IncomingNotification {
  headers: Record<string, string | string[] | undefined>;
  /** The body as parsed by its content type (JSON, or text for SNS). */
  body: unknown;
  /** The body's bytes exactly as received (SendGrid signs those). */
  raw: Buffer;
}

export interface NotificationReceipt {
  /** Bounces and complaints the notification held. */
  received: number;
  /** Of those, the ones that changed something (the rest matched nothing or were repeats). */
  applied: number;
}

/**
 * Bounce and complaint notifications of Amazon SES (through SNS), Postmark, SendGrid and
 * Mailgun. Each is verified the way its provider documents, with its credential from the
 * environment; a provider without one has no webhook. A verified event is matched to
 * Herald's message by the Message-ID Herald set, else by its recipient among the last 7
 * days' messages, and applied as feedback (idempotent on the provider's event id).
 */
@Injectable()
export class ProviderWebhooksService {
  private readonly logger = new Logger(ProviderWebhooksService.name);
  private readonly sendgrid: KeyObject | undefined;

  constructor(
    @Inject(CONFIG) private readonly config: HeraldConfig,
    private readonly certificates: SnsCertificates,
    private readonly locator: MessageLocator,
    private readonly feedback: FeedbackService,
    private readonly mailgunTokens: MailgunTokens,
  ) {
    const key = config.deliverability.providerWebhooks.sendgridPublicKey;
    this.sendgrid = key === undefined ? undefined : sendgridKey(key);
  }

  async receive(
    provider: Provider,
    notification: IncomingNotification,
  ): Promise<NotificationReceipt> {
    let events: ProviderEvent[];
    try {
      events = await this.verified(provider, notification);
    } catch (error) {
      if (!(error instanceof UnverifiedNotification)) throw error;
      this.logger.warn({ provider, reason: error.message }, 'provider notification refused');
      throw new ApiError(
        401,
        'The notification could not be verified as coming from the provider.',
      );
    }
    let applied = 0;
    for (const event of events) {
      const message = await this.locator.locate(event.messageId, event.recipient);
      if (!message) continue;
      const outcome = await this.feedback.apply({
        source: provider,
        eventKey: event.eventId,
        kind: event.kind,
        message,
        statusCode: event.statusCode,
        recipient: event.recipient,
      });
      if (outcome === 'applied') applied++;
    }
    return { received: events.length, applied };
  }

  /** The notification's events once it is verified; throws UnverifiedNotification if not. */
  private async verified(provider: Provider, notification: IncomingNotification) {
    const credentials = this.config.deliverability.providerWebhooks;
    switch (provider) {
      case 'ses':
        if (!credentials.snsTopicArns) throw new NotFoundError('route');
        return this.verifiedSns(credentials.snsTopicArns, notification.body);
      case 'postmark': {
        if (!credentials.postmark) throw new NotFoundError('route');
        const authorization = notification.headers.authorization;
        verifyPostmark(
          credentials.postmark,
          typeof authorization === 'string' ? authorization : undefined,
        );
        return postmarkEvents(notification.body);
      }
      case 'sendgrid': {
        if (!this.sendgrid) throw new NotFoundError('route');
        verifySendgrid(this.sendgrid, notification.headers, notification.raw);
        return sendgridEvents(notification.body);
      }
      case 'mailgun': {
        if (!credentials.mailgunSigningKey) throw new NotFoundError('route');
        const { token, timestamp } = verifyMailgun(
          credentials.mailgunSigningKey,
          notification.body,
        );
        await this.mailgunTokens.firstUse(token, timestamp);
        return mailgunEvents(notification.body);
      }
    }
  }

  /**
   * SNS: the topic must be one the operator listed (checked first, so a stranger's topic
   * costs no certificate fetch and is never confirmed), the certificate must come from a
   * trusted URL and verify the signature. A subscription confirmation of a listed topic is
   * confirmed at once by fetching its SubscribeURL (itself signed, and held to the same URL
   * rule), so pointing an SES topic at Herald needs no manual step.
   */
  private async verifiedSns(topics: string[], body: unknown): Promise<ProviderEvent[]> {
    const message = parseSnsMessage(body);
    if (!topics.includes(message.TopicArn)) {
      throw new UnverifiedNotification('TopicArn is not in SNS_TOPIC_ARNS');
    }
    if (!this.certificates.trusted(message.SigningCertURL)) {
      throw new UnverifiedNotification(
        'SigningCertURL is not an SNS certificate URL Herald trusts',
      );
    }
    let key: KeyObject;
    try {
      key = await this.certificates.key(message.SigningCertURL);
    } catch (error) {
      // Herald could not check it: a 500, so SNS delivers the message again later.
      if (error instanceof CertificateUnavailable) throw error;
      throw new UnverifiedNotification('SigningCertURL does not hold a certificate');
    }
    verifySnsSignature(message, key);
    if (message.Type === 'SubscriptionConfirmation') {
      if (!message.SubscribeURL || !this.certificates.trusted(message.SubscribeURL)) {
        throw new UnverifiedNotification('SubscribeURL is not an SNS URL Herald trusts');
      }
      await fetchPem(message.SubscribeURL);
      this.logger.log({ topic: message.TopicArn }, 'SNS subscription confirmed');
      return [];
    }
    if (message.Type !== 'Notification') return [];
    return sesEvents(message);
  }
}
