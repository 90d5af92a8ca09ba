import { convert } from 'html-to-text';

/** Converting more than this much HTML would take a worker too long; the rest is left out. */
const MAX_HTML = 512 * 1024;

/**
 * The plain-text part of a message whose author gave only HTML: readable text, links as
 * `text [url]`, images dropped (an open pixel has nothing to say), nothing upper-cased and no
 * line wrapping (a template's `{{…}}` must stay as written and in one piece; quoted-printable
 * takes care of long lines). Seconds of CPU for a large message: it runs on a template worker
 * thread (textFromHtml in template-renderer.ts), never on a thread that answers requests.
 */
export function convertHtmlToText(html: string): string {
  return convert(html.slice(0, MAX_HTML), {
    wordwrap: false,
    selectors: [
      { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
      { selector: 'img', format: 'skip' },
      // Upper-casing would turn `{{first_name}}` into a field that does not exist.
      ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({
        selector,
        options: { uppercase: false },
      })),
      { selector: 'table', options: { uppercaseHeaderCells: false } },
    ],
  }).trim();
}
