import { Inject, Injectable } from '@nestjs/common';
import { Campaign, Subscriber } from '../../generated/prisma/client';
import { HeraldConfig } from '../../platform/config/config';
import { CONFIG } from '../../platform/config/config.module';
import { accountIdOfRow } from '../../platform/database/account-id';
import { OutgoingMessage } from '../../platform/mail/mail-transport';
import { CompiledMessage, subscriberVariables } from '../../templates/template-renderer';
import { SenderIdentity } from '../../domains/sender-identity';
import { VerpAddresses } from '../../message-refs/verp-address';
import { FooterSender, senderVariables } from './opt-out-footer';
import { hasInvalidCharacters } from '../../platform/validation/text-integrity';
import { rewriteLinks } from '../tracking/click-tracking';
import { RecipientRef, RecipientTokens } from '../../message-refs/recipient-token';

/**
 * Turns a campaign and one subscriber into the message on the wire: merge
 * fields rendered, links and an open pixel routed through PUBLIC_URL for tracking, and the
 * RFC 2369 / RFC 8058 unsubscribe headers with a signed token (never the address), and a VERP
 * return path (at the sender domain's bounce subdomain when it has one), signed with the
 * sender domain's DKIM key. The Message-ID is derived from campaign and subscriber, so a resend after a
 * crash carries the same id and receivers can recognise it, and a provider's bounce
 * notification quoting it leads back to the recipient.
 */
@Injectable()
export class CampaignMessageBuilder {
  constructor(
    @Inject(CONFIG) private readonly config: HeraldConfig,
    private readonly tokens: RecipientTokens,
    private readonly verp: VerpAddresses,
  ) {}

  private readonly turns = new Turns(BUILDS_PER_TURN);

  async build(
    campaign: Campaign,
    compiled: CompiledMessage,
    subscriber: Subscriber,
    footer: FooterSender,
    sender: SenderIdentity | undefined,
  ): Promise<OutgoingMessage> {
    await this.turns.take();
    const ref: RecipientRef = {
      accountId: accountIdOfRow(campaign.accountId),
      subscriberId: subscriber.id,
      campaignId: campaign.id,
    };
    const unsubscribeToken = this.tokens.issue('unsubscribe', ref);
    const unsubscribeUrl = `${this.config.publicUrl}/unsubscribe/${unsubscribeToken}`;
    // The same token: the page where the person manages (ends, or takes up again) this list.
    const preferencesUrl = `${this.config.publicUrl}/preferences/${unsubscribeToken}`;
    const variables = {
      ...subscriberVariables(subscriber),
      ...senderVariables(footer),
      unsubscribe_url: unsubscribeUrl,
      preferences_url: preferencesUrl,
    };
    // Delivery runs in worker processes, which answer no requests: a template that cannot
    // loop renders right here rather than on a template thread.
    const rendered = compiled.renderHere
      ? compiled.renderHere(variables)
      : await compiled.render(variables);
    const trackToken = this.tokens.issue('track', ref);
    // Bounce reports come back to the return path, and unsubscribe mail to the mailto
    // address, each naming this very message through its signed token.
    const message = {
      kind: 'campaign',
      campaignId: campaign.id,
      subscriberId: subscriber.id,
    } as const;
    return {
      from: campaign.fromAddress,
      to: subscriber.email,
      subject: rendered.subject,
      html:
        rendered.html === null
          ? null
          : this.track(rendered.html, trackToken, [unsubscribeUrl, preferencesUrl]),
      text: rendered.text,
      headers: {
        'List-Unsubscribe': `<${unsubscribeUrl}>, <mailto:${this.verp.address('unsubscribe', message)}?subject=unsubscribe>`,
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
        'X-Herald-Campaign': campaign.id,
      },
      messageId: `${campaign.id}.${subscriber.id}`,
      storageKey: subscriber.id,
      dkim: sender?.dkim,
      envelopeFrom: this.verp.returnPath(message, sender),
    };
  }

  /** Click tracking for every http(s) link but the subscription ones, and an open pixel. */
  private track(html: string, token: string, untracked: string[]): string {
    const base = this.config.publicUrl;
    const linked = rewriteLinks(html, (target) => {
      // A target that cannot be percent-encoded stays as it is (untracked), not a failed send.
      if (untracked.includes(target) || hasInvalidCharacters(target)) return undefined;
      const signature = this.tokens.signValue(token, target);
      return `${base}/t/click/${token}?u=${encodeURIComponent(target)}&amp;s=${signature}`;
    });
    const pixel = `<img src="${base}/t/open/${token}" width="1" height="1" alt="" style="display:none">`;
    const close = linked.search(/<\/body>/i);
    return close < 0 ? linked + pixel : linked.slice(0, close) + pixel + linked.slice(close);
  }
}

/**
 * Messages built per turn of the event loop. Delivery asks for a whole window of messages at
 * once (each job claims its chunks together); built in one go, the first of them would wait
 * for all the others before its SMTP connection could even answer. A few per turn lets the
 * sockets be served in between, so the first message leaves while the rest are built.
 */
const BUILDS_PER_TURN = 8;

/** Hands out `perTurn` passes per turn of the event loop (setImmediate), in call order. */
class Turns {
  private readonly waiting: (() => void)[] = [];
  private scheduled = false;

  constructor(private readonly perTurn: number) {}

  take(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.release);
      }
    });
  }

  private readonly release = () => {
    for (const resolve of this.waiting.splice(0, this.perTurn)) resolve();
    if (this.waiting.length > 0) setImmediate(this.release);
    else this.scheduled = false;
  };
}
