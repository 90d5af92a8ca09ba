/**
 * Content-Transfer-Encodings of a text part, chosen and applied in one synchronous pass each:
 * the composer calls these once per message part, so they avoid nodemailer's stream
 * encoders (a Transform per part) and its regex-heavy line wrapping.
 */

export type TransferEncoding = '7bit' | 'quoted-printable' | 'base64';

/** Longest encoded line (RFC 2045: 76 characters, the soft break's `=` included). */
const LINE = 76;
/** Past this much text nodemailer stops looking for long lines and assumes some: so do we. */
const SCANNED = 128 * 1024;

/**
 * The encoding nodemailer would pick for this text (so a message reads the same to filters
 * whichever composed it): 7bit when it is plain ASCII with no line over 76 characters;
 * otherwise quoted-printable when Latin letters outnumber bytes outside ASCII and control
 * characters, else base64.
 */
export function transferEncodingOf(text: string): TransferEncoding {
  let plain = text.length <= SCANNED;
  let lineLength = 0;
  let latin = 0;
  let other = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x0a || code === 0x0d || code === 0x2028 || code === 0x2029) {
      lineLength = 0;
    } else if (++lineLength > LINE) {
      plain = false;
    }
    if (code <= 0x08 || code === 0x0b || code === 0x0c || (code >= 0x0e && code <= 0x1f)) {
      plain = false;
      other++;
    } else if (code >= 0x80) {
      plain = false;
      other++;
    } else if ((code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)) {
      latin++;
    }
  }
  if (plain) return '7bit';
  return other < latin ? 'quoted-printable' : 'base64';
}

/** The text in the given encoding, lines ending in CRLF, without a final line break. */
export function encodeText(text: string, encoding: TransferEncoding): string {
  if (encoding === 'base64') return base64Lines(text);
  if (encoding === 'quoted-printable') return quotedPrintable(text);
  return text.replace(/\r\n|\r|\n/g, '\r\n');
}

function base64Lines(text: string): string {
  const encoded = Buffer.from(text, 'utf8').toString('base64');
  if (encoded.length <= LINE) return encoded;
  const lines: string[] = [];
  for (let at = 0; at < encoded.length; at += LINE) lines.push(encoded.slice(at, at + LINE));
  return lines.join('\r\n');
}

/** `=XX` for every byte value. */
const ESCAPES = Array.from(
  { length: 256 },
  (_, byte) => `=${byte.toString(16).toUpperCase().padStart(2, '0')}`,
);

/**
 * Quoted-printable (RFC 2045 §6.7) of the text's UTF-8 bytes: printable ASCII but `=` as
 * it is, space and tab as they are unless they end a line, everything else escaped; CR, LF
 * and CRLF become CRLF line breaks; lines are cut with soft breaks (`=` CRLF) so none is
 * longer than 76 characters, never inside an escape. An unpaired surrogate becomes U+FFFD,
 * as Buffer.from would make it.
 */
function quotedPrintable(text: string): string {
  const length = text.length;
  let out = '';
  let lineLength = 0;
  let index = 0;
  while (index < length) {
    const code = text.charCodeAt(index);
    if (code === 0x0d || code === 0x0a) {
      index += code === 0x0d && text.charCodeAt(index + 1) === 0x0a ? 2 : 1;
      out += '\r\n';
      lineLength = 0;
      continue;
    }
    if (isLiteral(code) && !(isBlank(code) && endsLine(text, index + 1))) {
      // A run of characters that stay as they are, as much of it as the line has room for.
      const room = LINE - 1 - lineLength;
      if (room <= 0) {
        out += '=\r\n';
        lineLength = 0;
        continue;
      }
      let end = index + 1;
      while (end < length && end - index < room) {
        const next = text.charCodeAt(end);
        if (!isLiteral(next) || (isBlank(next) && endsLine(text, end + 1))) break;
        end++;
      }
      out += text.slice(index, end);
      lineLength += end - index;
      index = end;
      continue;
    }
    // One character as escaped bytes, kept on one line.
    let escaped: string;
    if (code < 0x80) {
      escaped = ESCAPES[code];
      index++;
    } else if (code < 0x800) {
      escaped = ESCAPES[0xc0 | (code >> 6)] + ESCAPES[0x80 | (code & 0x3f)];
      index++;
    } else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(index + 1))) {
      const point = 0x10000 + ((code - 0xd800) << 10) + (text.charCodeAt(index + 1) - 0xdc00);
      escaped =
        ESCAPES[0xf0 | (point >> 18)] +
        ESCAPES[0x80 | ((point >> 12) & 0x3f)] +
        ESCAPES[0x80 | ((point >> 6) & 0x3f)] +
        ESCAPES[0x80 | (point & 0x3f)];
      index += 2;
    } else {
      const point = code >= 0xd800 && code <= 0xdfff ? 0xfffd : code;
      escaped =
        ESCAPES[0xe0 | (point >> 12)] +
        ESCAPES[0x80 | ((point >> 6) & 0x3f)] +
        ESCAPES[0x80 | (point & 0x3f)];
      index++;
    }
    if (lineLength + escaped.length > LINE - 1) {
      out += '=\r\n';
      lineLength = 0;
    }
    out += escaped;
    lineLength += escaped.length;
  }
  return out;
}

/** Printable ASCII but `=`, and the two blanks. */
function isLiteral(code: number): boolean {
  return (code >= 0x21 && code <= 0x7e && code !== 0x3d) || code === 0x20 || code === 0x09;
}

function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Whether a line ends at this index (a line break or the end of the text). */
function endsLine(text: string, index: number): boolean {
  if (index >= text.length) return true;
  const code = text.charCodeAt(index);
  return code === 0x0d || code === 0x0a;
}
