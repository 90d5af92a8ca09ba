import { hasInvalidCharacters } from '../../platform/validation/text-integrity';

/**
 * Rewrites the `href` of every `<a>` tag whose target is an http(s) URL: `rewrite` returns
 * the new (already HTML-safe) attribute value, or undefined to keep the link as it is.
 *
 * One pass over the HTML, each character looked at once: tags are found with a regex that
 * cannot backtrack and their attributes read by hand (quoted values may hold `>`), and the
 * search resumes after the tag. So the cost is linear in the HTML, however many links it
 * has or however malformed it is (an unclosed tag or quote ends the scan).
 */
export function rewriteLinks(html: string, rewrite: (url: string) => string | undefined): string {
  const parts: string[] = [];
  let copied = 0;
  const tagStart = /<a(?=[\s/>])/gi;
  let match: RegExpExecArray | null;
  while ((match = tagStart.exec(html)) !== null) {
    const tag = readTag(html, match.index + 2);
    if (tag.href) {
      const url = tag.href.value.replace(/&amp;/gi, '&');
      const replaced = /^https?:\/\//i.test(url) ? rewrite(url) : undefined;
      if (replaced !== undefined) {
        parts.push(html.slice(copied, tag.href.start), `"${replaced}"`);
        copied = tag.href.end;
      }
    }
    if (tag.end >= html.length) break;
    tagStart.lastIndex = tag.end;
  }
  parts.push(html.slice(copied));
  return parts.join('');
}

interface Tag {
  /** Index just past the tag's closing `>` (or the end of the HTML). */
  end: number;
  /** The first href attribute: its value, and where the value (quotes included) lies. */
  href?: { value: string; start: number; end: number };
}

/** Reads the attributes of a tag from `from` (just after its name) to its closing `>`. */
function readTag(html: string, from: number): Tag {
  const tag: Tag = { end: html.length };
  const length = html.length;
  let index = from;
  while (index < length) {
    const char = html.charCodeAt(index);
    if (char === GREATER) {
      tag.end = index + 1;
      return tag;
    }
    if (isSpace(char) || char === SLASH) {
      index++;
      continue;
    }
    const nameStart = index;
    while (index < length && !endsName(html.charCodeAt(index))) index++;
    const nameEnd = index;
    index = skipSpaces(html, index);
    if (html.charCodeAt(index) !== EQUALS) continue;
    index = skipSpaces(html, index + 1);
    const valueStart = index;
    let value: string;
    const quote = html[index];
    if (quote === '"' || quote === "'") {
      const close = html.indexOf(quote, index + 1);
      if (close < 0) return tag;
      value = html.slice(index + 1, close);
      index = close + 1;
    } else {
      while (index < length && !endsUnquoted(html.charCodeAt(index))) index++;
      value = html.slice(valueStart, index);
    }
    if (!tag.href && nameEnd - nameStart === 4 && /^href$/i.test(html.slice(nameStart, nameEnd))) {
      tag.href = { value, start: valueStart, end: index };
    }
  }
  return tag;
}

const GREATER = 0x3e;
const SLASH = 0x2f;
const EQUALS = 0x3d;

/** HTML's ASCII whitespace: space, tab, LF, FF, CR. */
function isSpace(char: number): boolean {
  return char === 0x20 || char === 0x09 || char === 0x0a || char === 0x0c || char === 0x0d;
}

function endsName(char: number): boolean {
  return isSpace(char) || char === SLASH || char === GREATER || char === EQUALS;
}

function endsUnquoted(char: number): boolean {
  return isSpace(char) || char === GREATER;
}

function skipSpaces(html: string, from: number): number {
  let index = from;
  while (index < html.length && isSpace(html.charCodeAt(index))) index++;
  return index;
}

/**
 * A click target as a Location header value: HTTP headers carry bytes, not Unicode, so a
 * target with non-ASCII characters is sent in its encoded form (`http://bücher.example/é` →
 * `http://xn--bcher-kva.example/%C3%A9`). Undefined when it cannot be written at all.
 */
export function locationOf(target: string): string | undefined {
  if (PRINTABLE_ASCII.test(target)) return target;
  if (hasInvalidCharacters(target)) return undefined;
  try {
    const href = new URL(target).href;
    return /^https?:\/\//i.test(href) && PRINTABLE_ASCII.test(href) ? href : undefined;
  } catch {
    return undefined;
  }
}

const PRINTABLE_ASCII = /^[\x21-\x7e]*$/;
