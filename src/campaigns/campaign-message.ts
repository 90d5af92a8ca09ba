import { Inject, Injectable } from '@nestjs/common';
import { Campaign, Subscriber } from '../generated/prisma/client';
import { HeraldConfig } from '../platform/config/config';
import { CONFIG } from '../platform/config/config.module';
import { accountIdOfRow } from '../platform/database/account-id';
import { OutgoingMessage } from '../platform/mail/mail-transport';
import { CompiledMessage, subscriberVariables } from '../templates/template-renderer';
import { hasInvalidCharacters } from '../platform/validation/text-integrity';
import { rewriteLinks } from './click-tracking';
import { RecipientRef, RecipientTokens } from './recipient-token';

/**
 * Turns a campaign and one subscriber into the message on the wire: merge
 * fields rendered, links and an open pixel routed through PUBLIC_URL for tracking, and the
 * RFC 2369 / RFC 8058 unsubscribe headers with a signed token (never the address). The
 * Message-ID is derived from campaign and subscriber, so a resend after a crash carries the
 * same id and receivers can recognise it.
 */
@Injectable()
export class CampaignMessageBuilder {
  constructor(
    @Inject(CONFIG) private readonly config: HeraldConfig,
    private readonly tokens: RecipientTokens,
  ) {}

  async build(
    campaign: Campaign,
    compiled: CompiledMessage,
    subscriber: Subscriber,
  ): Promise<OutgoingMessage> {
    const ref: RecipientRef = {
      accountId: accountIdOfRow(campaign.accountId),
      subscriberId: subscriber.id,
      campaignId: campaign.id,
    };
    const unsubscribeToken = this.tokens.issue('unsubscribe', ref);
    const unsubscribeUrl = `${this.config.publicUrl}/unsubscribe/${unsubscribeToken}`;
    const rendered = await compiled.render({
      ...subscriberVariables(subscriber),
      unsubscribe_url: unsubscribeUrl,
    });
    const trackToken = this.tokens.issue('track', ref);
    return {
      from: campaign.fromAddress,
      to: subscriber.email,
      subject: rendered.subject,
      html: rendered.html === null ? null : this.track(rendered.html, trackToken, unsubscribeUrl),
      text: rendered.text,
      headers: {
        'List-Unsubscribe': `<${unsubscribeUrl}>, <mailto:${this.unsubscribeMailbox(campaign)}?subject=unsubscribe%20${unsubscribeToken}>`,
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
        'X-Herald-Campaign': campaign.id,
      },
      messageId: `${campaign.id}.${subscriber.id}`,
      storageKey: subscriber.id,
    };
  }

  /** Click tracking for every http(s) link but the unsubscribe one, and an open pixel. */
  private track(html: string, token: string, unsubscribeUrl: string): string {
    const base = this.config.publicUrl;
    const linked = rewriteLinks(html, (target) => {
      // A target that cannot be percent-encoded stays as it is (untracked), not a failed send.
      if (target === unsubscribeUrl || hasInvalidCharacters(target)) return undefined;
      const signature = this.tokens.signValue(token, target);
      return `${base}/t/click/${token}?u=${encodeURIComponent(target)}&amp;s=${signature}`;
    });
    const pixel = `<img src="${base}/t/open/${token}" width="1" height="1" alt="" style="display:none">`;
    const close = linked.search(/<\/body>/i);
    return close < 0 ? linked + pixel : linked.slice(0, close) + pixel + linked.slice(close);
  }

  /** A mailbox at the sender's domain; the operator routes it (Herald acts on the https link). */
  private unsubscribeMailbox(campaign: Campaign): string {
    const domain = /@([^\s>@]+)>?\s*$/.exec(campaign.fromAddress)?.[1] ?? 'localhost';
    return `unsubscribe@${domain}`;
  }
}
