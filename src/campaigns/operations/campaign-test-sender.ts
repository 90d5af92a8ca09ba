import { Injectable } from '@nestjs/common';
import { isEmail } from 'class-validator';
import { Principal } from '../../auth/principal';
import { SenderDomainsService } from '../../domains/sender-domains.service';
import { ErasureGuard } from '../../erasure/erasure-guard';
import { Campaign, Subscriber } from '../../generated/prisma/client';
import { newId } from '../../platform/crypto/ids';
import { normalizeEmail } from '../../platform/crypto/keyed-hasher';
import { ErrorDetail, ValidationFailedError } from '../../platform/errors/api-errors';
import {
  MailDeliveryError,
  MailTransport,
  messageIdHeader,
  withoutAddresses,
} from '../../platform/mail/mail-transport';
import { withinDeadline } from '../../platform/queue/within-deadline';
import { SubscribersService } from '../../subscribers/subscribers.service';
import { SuppressionList } from '../../suppression/suppression-list';
import { CampaignRendering } from '../content/campaign-rendering';
import { MessageLog } from '../../messages/message-log';

/** The subject of every test message starts with this. */
export const TEST_SUBJECT_PREFIX = '[Test] ';
/** How long a test send waits for the relay per message before calling it failed. */
const TEST_SEND_DEADLINE_MS = 10_000;

export interface TestSendResult {
  email: string;
  status: 'sent' | 'failed';
  /** Why it failed (the relay's answer, addresses cut out); null when sent. */
  error: string | null;
}

/**
 * Sends a campaign's real rendering to a few addresses, now, from the API process: the
 * person testing waits for the relay's answer. Nothing of it is a campaign send: no ledger
 * row, no statistics, no tracking, no VERP return path (a bounce of a test must not count
 * against anyone), and the message says what it is (`[Test] ` subject, `X-Herald-Test`).
 * Addresses are checked as for any named write: an erased identity is refused (409) and a
 * suppressed address is a 422 on its item.
 */
@Injectable()
export class CampaignTestSender {
  constructor(
    private readonly rendering: CampaignRendering,
    private readonly transport: MailTransport,
    private readonly senderDomains: SenderDomainsService,
    private readonly suppressions: SuppressionList,
    private readonly subscribers: SubscribersService,
    private readonly erasure: ErasureGuard,
    private readonly messageLog: MessageLog,
  ) {}

  async send(caller: Principal, campaign: Campaign, emails: string[]): Promise<TestSendResult[]> {
    const { accountId } = caller;
    const items = checkedAddresses(emails);
    const addresses = items.map((item) => item.address);
    const details: ErrorDetail[] = [];
    await this.senderDomains.assertCanSendFrom(accountId, campaign.fromAddress).catch(collect);
    for (const { index, address } of items) {
      await this.suppressions
        .assertNotSuppressed(accountId, address, `emails[${index}]`)
        .catch(collect);
    }
    if (details.length > 0) throw new ValidationFailedError(details);

    const render = await this.rendering.compile(accountId, campaign);
    const people = await this.erasure.runNamedWrite(
      caller,
      addresses,
      'POST /v1/campaigns/:id/test',
      async (tx) => {
        const found = new Map<string, Subscriber>();
        for (const address of addresses) {
          const subscriber = await this.subscribers.findByEmail(accountId, address, tx);
          if (subscriber) found.set(address, subscriber);
        }
        return found;
      },
    );
    const sender = await this.senderDomains.signingIdentity(accountId, campaign.fromAddress);
    const results: TestSendResult[] = [];
    for (const address of addresses) {
      const subscriber = people.get(address);
      const rendered = await render.renderFor(subscriber ?? { email: address });
      const id = newId();
      const subject = TEST_SUBJECT_PREFIX + rendered.subject;
      const messageId = `test.${campaign.id}.${id}`;
      const sending = this.transport.send({
        from: campaign.fromAddress,
        to: address,
        subject,
        html: rendered.html,
        text: rendered.text,
        headers: { 'X-Herald-Test': 'true', 'X-Herald-Campaign': campaign.id },
        messageId,
        storageKey: subscriber?.id,
        dkim: sender?.dkim,
      });
      const result = await withinDeadline(sending, TEST_SEND_DEADLINE_MS, 'the relay').then(
        (receipt) => ({
          email: address,
          status: 'sent' as const,
          error: null,
          reply: receipt.response,
        }),
        (error: unknown) => ({ email: address, status: 'failed' as const, error: reason(error) }),
      );
      await this.messageLog.recordFinished(
        accountId,
        {
          id,
          source: 'test',
          recipient: address,
          from: campaign.fromAddress,
          subject,
          messageId: messageIdHeader(messageId, campaign.fromAddress),
          campaignId: campaign.id,
          subscriberId: subscriber?.id ?? null,
        },
        'reply' in result
          ? [{ type: 'sent' }, { type: 'delivered', smtpCode: 250, reason: result.reply }]
          : [{ type: 'failed', reason: result.error }],
      );
      results.push({ email: result.email, status: result.status, error: result.error });
    }
    return results;

    function collect(error: unknown): void {
      if (!(error instanceof ValidationFailedError)) throw error;
      details.push(...error.details);
    }
  }
}

/**
 * Trimmed, each a valid address (422 on its item otherwise), duplicates dropped; each with
 * its index in the request, for the field paths of later refusals.
 */
function checkedAddresses(emails: string[]): { index: number; address: string }[] {
  const details: ErrorDetail[] = [];
  const addresses = new Map<string, { index: number; address: string }>();
  emails.forEach((raw, index) => {
    const address = raw.trim();
    if (!isEmail(address)) {
      details.push({
        field: `emails[${index}]`,
        code: 'invalid_format',
        message: `emails[${index}] must be an email address`,
      });
      return;
    }
    const key = normalizeEmail(address);
    if (!addresses.has(key)) addresses.set(key, { index, address });
  });
  if (details.length > 0) throw new ValidationFailedError(details);
  return [...addresses.values()];
}

function reason(error: unknown): string {
  if (error instanceof MailDeliveryError) return error.message;
  return withoutAddresses(error instanceof Error ? error.message : String(error));
}
