import { Inject, Injectable } from '@nestjs/common';
import { AccountsService } from '../../accounts/accounts.service';
import { Campaign, Subscriber } from '../../generated/prisma/client';
import { senderVariables } from './opt-out-footer';
import { HeraldConfig } from '../../platform/config/config';
import { CONFIG } from '../../platform/config/config.module';
import type { AccountId } from '../../platform/database/account-id';
import { MessageContent, subscriberVariables } from '../../templates/template-renderer';
import { TemplatesService } from '../../templates/templates.service';
import { compileCampaignContent, footerSenderOf } from './campaign-content';

/** A campaign compiled once, rendered for as many people as needed. */
export interface CampaignRender {
  /**
   * The message for this subscriber, or for an address that is no subscriber's (merge fields
   * other than `email` then render empty).
   */
  renderFor(person: Subscriber | { email: string }): Promise<MessageContent>;
}

/**
 * A campaign rendered as its recipients will get it, for the preview and test sends: the same
 * content (the template's current one until the send freezes a copy) through the same recipe
 * (compileCampaignContent) and footer, and the same renderer. What differs is only what must not act on anyone: no tracking, and
 * unsubscribe links that lead to a page saying they are not valid.
 */
@Injectable()
export class CampaignRendering {
  constructor(
    @Inject(CONFIG) private readonly config: HeraldConfig,
    private readonly templates: TemplatesService,
    private readonly accounts: AccountsService,
  ) {}

  /** Throws ValidationFailedError (422) when the content no longer compiles. */
  async compile(accountId: AccountId, campaign: Campaign): Promise<CampaignRender> {
    const compiled = await compileCampaignContent(
      campaign.subject,
      await this.content(accountId, campaign),
    );
    const sender = senderVariables(await footerSenderOf(this.accounts, accountId));
    const inert = `${this.config.publicUrl}/unsubscribe/test-message`;
    return {
      renderFor: (person) =>
        compiled.render({
          ...('id' in person ? subscriberVariables(person) : { email: person.email }),
          ...sender,
          unsubscribe_url: inert,
          preferences_url: inert,
        }),
    };
  }

  /** The html and text recipients get: the frozen copy once sending, else the template's. */
  private async content(
    accountId: AccountId,
    campaign: Campaign,
  ): Promise<{ html: string | null; text: string | null }> {
    if (campaign.html !== null || campaign.text !== null || !campaign.templateId) {
      return { html: campaign.html, text: campaign.text };
    }
    const template = await this.templates.findRow(accountId, campaign.templateId);
    return { html: template?.html ?? null, text: template?.text ?? null };
  }
}
