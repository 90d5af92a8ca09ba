import { Injectable } from '@nestjs/common';
import type { AccountId } from '../../platform/database/account-id';
import { SharedStore } from '../../platform/store/shared-store';

/**
 * How many messages may leave at once after a pause in sending: the "first burst". After it,
 * a bucket refills at rate/60 messages a second, so a campaign goes out as a steady pace
 * rather than a minute's allowance at once.
 */
export const SEND_BURST = 4;

/** Messages per minute for one campaign and for its account; undefined: no limit. */
export interface SendRates {
  campaign: number | undefined;
  account: number | undefined;
}

/** What the bucket granted: `granted` messages now, or none and when to ask again. */
export interface SendGrant {
  granted: number;
  /** When nothing was granted: milliseconds until the emptier bucket holds one message. */
  retryInMs: number;
}

/**
 * The campaign send throttle, shared by every worker process through the shared store: a delivery job
 * asks it before each claim of recipients, and claims only what it grants.
 */
@Injectable()
export class SendRateLimiter {
  constructor(private readonly store: SharedStore) {}

  /**
   * Takes up to `wanted` messages from the campaign's and the account's buckets, together, so
   * a message is counted against both or neither (SharedStore.takeTokens).
   */
  take(
    accountId: AccountId,
    campaignId: string,
    rates: SendRates,
    wanted: number,
  ): Promise<SendGrant> {
    return this.store.takeTokens(
      [
        { key: `send-rate:campaign:${campaignId}`, perMinute: rates.campaign ?? 0 },
        { key: `send-rate:account:${accountId}`, perMinute: rates.account ?? 0 },
      ],
      wanted,
      SEND_BURST,
    );
  }
}
