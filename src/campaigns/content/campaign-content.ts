import type { AccountsService } from '../../accounts/accounts.service';
import { FooterSender, withOptOut } from './opt-out-footer';
import type { AccountId } from '../../platform/database/account-id';
import { CompiledMessage, compileMessage, textFromHtml } from '../../templates/template-renderer';

/**
 * The campaign content recipe, one for the send and for the preview and test sends, so that
 * what a person previews is what recipients get: the subject and content, a text part made
 * from HTML-only content (converted once, from the template itself, so merge fields survive),
 * the opt-out footer on each part without an unsubscribe link of its own, compiled once.
 * Throws ValidationFailedError when the content does not compile.
 */
export async function compileCampaignContent(
  subject: string,
  content: { html: string | null; text: string | null },
): Promise<CompiledMessage> {
  const { html, text } = content;
  return compileMessage(
    withOptOut({
      subject,
      html,
      text: text ?? (html === null ? null : await textFromHtml(html)),
    }),
  );
}

/** Who the footer names: the account's name and postal address, as its settings hold them. */
export async function footerSenderOf(
  accounts: AccountsService,
  accountId: AccountId,
): Promise<FooterSender> {
  const settings = await accounts.settings(accountId);
  return { name: settings.name, postalAddress: settings.postal_address };
}
