import { MessageContent } from '../../templates/template-renderer';

/** A template field that gives the reader a way out: either is enough. */
const OPT_OUT_FIELD = /\{\{\{?\s*(unsubscribe_url|preferences_url)\s*\}?\}\}/;

/**
 * Appended to a campaign part that offers no way out of its own (no `{{unsubscribe_url}}` or
 * `{{preferences_url}}`): who sends it (the account's name and postal address, which
 * anti-spam laws ask for) and the links. Written with the same fields, so the renderer fills
 * and escapes them like any other.
 */
const HTML_FOOTER = `<div style="margin-top:32px;padding-top:16px;border-top:1px solid #dddddd;font:12px/1.5 sans-serif;color:#666666">
<p style="margin:0 0 8px">{{account_name}}{{#if postal_address}} · {{postal_address}}{{/if}}</p>
<p style="margin:0"><a href="{{unsubscribe_url}}" style="color:#666666">Unsubscribe</a> · <a href="{{preferences_url}}" style="color:#666666">Manage your subscription</a></p>
</div>`;

const TEXT_FOOTER = `

--
{{account_name}}{{#if postal_address}}, {{postal_address}}{{/if}}
Unsubscribe: {{unsubscribe_url}}
Manage your subscription: {{preferences_url}}`;

/**
 * Every campaign message has a visible way to unsubscribe in each of its parts: the
 * author's own link where the template places one, otherwise Herald's footer (before
 * `</body>` when there is one).
 */
export function withOptOut(content: MessageContent): MessageContent {
  return {
    subject: content.subject,
    html: content.html === null ? null : withHtmlFooter(content.html),
    text:
      content.text === null || OPT_OUT_FIELD.test(content.text)
        ? content.text
        : content.text.trimEnd() + TEXT_FOOTER,
  };
}

function withHtmlFooter(html: string): string {
  if (OPT_OUT_FIELD.test(html)) return html;
  const close = html.search(/<\/body>/i);
  return close < 0 ? html + HTML_FOOTER : html.slice(0, close) + HTML_FOOTER + html.slice(close);
}

/** The sender as the footer and the subscription pages show it. */
export interface FooterSender {
  name: string;
  postalAddress: string | null;
}

/** The footer's fields: the address on one line, as mail clients show it in a footer. */
export function senderVariables(sender: FooterSender): Record<string, string> {
  return {
    account_name: sender.name,
    postal_address: (sender.postalAddress ?? '')
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter(Boolean)
      .join(', '),
  };
}
