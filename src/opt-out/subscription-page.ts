import type { FastifyReply } from 'fastify';

/** Text into HTML, escaped (an account's name is the customer's input). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/**
 * The small, self-contained pages a recipient reaches from a message (no script, no
 * external asset, not indexed, not cached, no referrer leaking the token). `body` is HTML
 * the caller built from escaped parts.
 */
export async function sendPage(
  reply: FastifyReply,
  status: number,
  title: string,
  body: string,
): Promise<void> {
  await reply
    .status(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('x-robots-tag', 'noindex')
    .header(
      'content-security-policy',
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
    )
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title></head>` +
        `<body style="font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;line-height:1.5"><h1>${escapeHtml(title)}</h1>${body}</body></html>`,
    );
}

/** A button that POSTs a form to `action` (a path of this site) with one hidden field. */
export function postButton(action: string, label: string, field: [string, string]): string {
  return (
    `<form method="post" action="${escapeHtml(action)}">` +
    `<input type="hidden" name="${escapeHtml(field[0])}" value="${escapeHtml(field[1])}">` +
    `<button type="submit">${escapeHtml(label)}</button></form>`
  );
}

export const INVALID_LINK = {
  title: 'This link is not valid',
  body: '<p>The link is incomplete, has been changed, or belongs to an address that no longer receives mail here.</p>',
};
