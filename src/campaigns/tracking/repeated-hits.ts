import { Injectable, Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { SharedStore } from '../../platform/store/shared-store';
import { REPEAT_HIT_WINDOW_SECONDS } from '../core/campaigns.settings';
import type { ActivityKind } from '../ledger/campaign-ledger.sql';

/** Whose hit it is: one message (campaign and subscriber) and, for a click, its link. */
export interface HitSubject {
  accountId: string;
  campaignId: string;
  subscriberId: string;
  url?: string;
}

/**
 * Decides, before anything is written, whether an open or click is the first of its kind for
 * its message (and link) within REPEAT_HIT_WINDOW_SECONDS. The memory is a Redis key per
 * message and link under the installation's prefix, set with NX and a TTL: every API process
 * behind a balancer shares it, SET NX lets exactly one of many simultaneous hits through, and
 * the key empties itself. A later hit inside the window is answered without a transaction.
 *
 * When Redis cannot answer the hit counts: an outage should not lose people's opens, and the
 * per-address limit on the tracking routes still bounds what a loop can do meanwhile.
 */
@Injectable()
export class RepeatedHits {
  private readonly logger = new Logger(RepeatedHits.name);

  constructor(private readonly store: SharedStore) {}

  /** True for the first hit in the window; the key is then held until the window ends. */
  async first(kind: ActivityKind, subject: HitSubject): Promise<boolean> {
    try {
      return await this.store.markIfAbsent(keyOf(kind, subject), REPEAT_HIT_WINDOW_SECONDS * 1000);
    } catch (error) {
      this.logger.warn(`repeat check unavailable, counting the ${kind}: ${String(error)}`);
      return true;
    }
  }

  /** Forgets a first hit whose recording failed, so the next one counts in its place. */
  async forget(kind: ActivityKind, subject: HitSubject): Promise<void> {
    await this.store.unmark(keyOf(kind, subject)).catch(() => undefined);
  }
}

function keyOf(kind: ActivityKind, { accountId, campaignId, subscriberId, url }: HitSubject) {
  // The link hashed: a key's length does not depend on how long the target is.
  const link =
    url === undefined
      ? ''
      : `:${createHash('sha256').update(url).digest('base64url').slice(0, 22)}`;
  return `tracking-hit:${kind}:${accountId}:${campaignId}:${subscriberId}${link}`;
}
