import { Injectable } from '@nestjs/common';
import { Principal } from '../auth/principal';
import { CampaignsService } from '../campaigns/definition/campaigns.service';
import { ErasureGuard } from '../erasure/erasure-guard';
import { ErasureService } from '../erasure/erasure.service';
import { newId } from '../platform/crypto/ids';
import type { Db } from '../platform/database/db';
import { PrismaService } from '../platform/database/prisma.service';
import { NotFoundError, ValidationFailedError } from '../platform/errors/api-errors';
import { EmailErasedError } from '../erasure/erasure-errors';
import { MailEvents } from '../stats/mail-events';
import { StatsService } from '../stats/stats.service';
import { SubscriberStatistics } from '../subscribers/subscriber-statistics.service';
import { SubscribersService } from '../subscribers/subscribers.service';
import { IdempotentOutcome, IdempotentRequests } from '../transactional/idempotent-requests';
import { ConversionResponse, CreateConversionDto } from './conversion.dto';
import { ConversionRow, ConversionsRepository } from './conversions.repository';

const ENDPOINT = 'POST /v1/conversions';
/** How far back a click earns a campaign the credit for a conversion. */
export const ATTRIBUTION_DAYS = 7;
/** A conversion may be dated this far ahead of the server's clock (clocks differ a little). */
const FUTURE_SLACK_MS = 5 * 60_000;

const invalid = (field: string, code: string, message: string) =>
  new ValidationFailedError([{ field, code, message }]);

/**
 * Revenue reported by the account's systems: added to the subscriber's revenue_cents and,
 * for the campaign named (or else the one the subscriber last clicked within 7 days), to the
 * campaign's, through MailEvents (the day's revenue too), in one transaction.
 */
@Injectable()
export class ConversionsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly conversions: ConversionsRepository,
    private readonly subscribers: SubscribersService,
    private readonly statistics: SubscriberStatistics,
    private readonly campaigns: CampaignsService,
    private readonly stats: StatsService,
    private readonly mailEvents: MailEvents,
    private readonly erasureGuard: ErasureGuard,
    private readonly erasure: ErasureService,
    private readonly idempotent: IdempotentRequests,
  ) {}

  async create(
    caller: Principal,
    body: CreateConversionDto,
    key: string | undefined,
  ): Promise<IdempotentOutcome> {
    const id = newId();
    return this.idempotent.run(caller.accountId, ENDPOINT, key, body, id, async (complete) => {
      const response = { status: 201, body: await this.record(caller, body, id, complete) };
      return response;
    });
  }

  private async record(
    caller: Principal,
    body: CreateConversionDto,
    id: string,
    complete: (tx: Db, response: { status: number; body: ConversionResponse }) => Promise<void>,
  ): Promise<ConversionResponse> {
    const { accountId } = caller;
    if (body.email !== undefined && body.subscriber_id !== undefined) {
      throw invalid('subscriber_id', 'conflict', 'Give either email or subscriber_id, not both.');
    }
    if (body.email === undefined && body.subscriber_id === undefined) {
      throw invalid('email', 'required', 'Name the subscriber by email or subscriber_id.');
    }
    const occurredAt = body.occurred_at ? new Date(body.occurred_at) : new Date();
    if (occurredAt.getTime() > Date.now() + FUTURE_SLACK_MS) {
      throw invalid('occurred_at', 'in_future', 'occurred_at must not be in the future.');
    }
    if (body.campaign_id !== undefined) {
      await this.campaigns.get(caller, body.campaign_id).catch((error: unknown) => {
        if (error instanceof NotFoundError) {
          throw invalid('campaign_id', 'not_found', 'No such campaign.');
        }
        throw error;
      });
    }

    const work = async (tx: Db, subscriberId: string): Promise<ConversionResponse> => {
      const campaignId =
        body.campaign_id ??
        (await this.stats.lastClickedCampaign(
          tx,
          accountId,
          subscriberId,
          occurredAt,
          ATTRIBUTION_DAYS,
        ));
      const row: ConversionRow = {
        id,
        subscriberId,
        campaignId,
        amountCents: body.amount_cents,
        currency: body.currency,
        occurredAt,
      };
      if (!(await this.statistics.addRevenue(accountId, subscriberId, body.amount_cents, tx))) {
        throw new EmailErasedError(); // erased between the lookup and this write
      }
      await this.conversions.create(accountId, row, tx);
      await this.mailEvents.record(tx, accountId, [
        { kind: 'converted', subscriberId, campaignId, amountCents: body.amount_cents, occurredAt },
      ]);
      const response = present(row);
      await complete(tx, { status: 201, body: response });
      return response;
    };

    if (body.email !== undefined) {
      // A named write to an address: refused (409, audited by hash) if it was erased.
      return this.erasureGuard.runNamedWrite(caller, [body.email], ENDPOINT, async (tx) => {
        const subscriber = await this.subscribers.findByEmail(accountId, body.email!, tx);
        if (!subscriber) throw invalid('email', 'not_found', 'No subscriber has this email.');
        return work(tx, subscriber.id);
      });
    }
    const subscriber = await this.subscribers.findRow(accountId, body.subscriber_id!);
    if (!subscriber) {
      const erased = await this.erasure.erasedHashOf(accountId, body.subscriber_id!);
      if (erased) throw await this.erasureGuard.refuse(caller, erased, ENDPOINT);
      throw invalid('subscriber_id', 'not_found', 'No such subscriber.');
    }
    return this.erasureGuard.runNamedWrite(caller, [subscriber.email], ENDPOINT, (tx) =>
      work(tx, subscriber.id),
    );
  }
}

function present(row: ConversionRow): ConversionResponse {
  return {
    id: row.id,
    subscriber_id: row.subscriberId,
    campaign_id: row.campaignId,
    amount_cents: row.amountCents,
    currency: row.currency,
    occurred_at: row.occurredAt.toISOString(),
  };
}
