import { randomBytes } from 'node:crypto';
import { foldLines } from 'nodemailer/lib/mime-funcs';
import MimeNode from 'nodemailer/lib/mime-node';
import { encodeText, transferEncodingOf } from './transfer-encoding';

/** What goes into one message: the fields of OutgoingMessage that end up in its bytes. */
export interface MimeContent {
  from: string;
  to: string;
  subject: string;
  html?: string | null;
  text?: string | null;
  headers?: Record<string, string>;
  /** The Message-ID header's value, angle brackets included. */
  messageId: string;
}

export interface ComposedMime {
  /** The RFC 5322 message: headers and body, CRLF line ends. */
  raw: Buffer;
  /** The From header's address: the envelope sender when the message names none. */
  fromAddress: string;
}

/**
 * Builds the message nodemailer's own composer would build (the same headers in the same
 * order, encoded by nodemailer's own header encoder where a value needs encoding, the same
 * multipart/alternative layout and the same choice of transfer encoding per part), as one
 * buffer in one synchronous pass. Handed to nodemailer as `raw`, it is then only signed
 * (DKIM) and sent, one write per message instead of a stream per MIME node.
 *
 * What stays the same across a campaign is worked out once and kept: the encoded From line
 * and its address, the normalised header names, the Date line within a second. Per message,
 * plain ASCII values (the usual subject, the unsubscribe links) are written as they are, and
 * each part is encoded in one scan. Undefined for what nodemailer should compose itself: no
 * content at all, an empty part, or a custom header that would replace a standard one.
 */
export function composeMime(
  content: MimeContent,
  now: number = Date.now(),
): ComposedMime | undefined {
  const parts: Part[] = [];
  for (const [type, body] of [
    ['text/plain', content.text],
    ['text/html', content.html],
  ] as const) {
    if (body === null || body === undefined) continue;
    if (body === '') return undefined;
    const encoding = transferEncodingOf(body);
    parts.push({ type, encoding, body: encodeText(body, encoding) });
  }
  if (parts.length === 0) return undefined;
  const sender = senderOf(content.from);
  if (!sender) return undefined;

  const lines: string[] = [];
  for (const [key, value] of Object.entries(content.headers ?? {})) {
    const name = headerName(key);
    if (name === undefined || STANDARD.has(name)) return undefined;
    pushHeader(lines, name, value);
  }
  lines.push(sender.line);
  lines.push(PLAIN_ADDRESS.test(content.to) ? `To: ${content.to}` : encodedLine('To', content.to));
  pushHeader(lines, 'Subject', content.subject);
  lines.push(
    MESSAGE_ID.test(content.messageId)
      ? `Message-ID: ${content.messageId}`
      : encodedLine('Message-ID', content.messageId),
  );
  lines.push(dateLine(now), 'MIME-Version: 1.0');

  let message: string;
  if (parts.length === 1) {
    const [part] = parts;
    lines.push(partHeaders(part));
    message = `${lines.join('\r\n')}\r\n\r\n${part.body}\r\n`;
  } else {
    const boundary = boundaryFor(parts);
    lines.push(`Content-Type: multipart/alternative;\r\n boundary="${boundary}"`);
    let body = '';
    for (const part of parts)
      body += `\r\n--${boundary}\r\n${partHeaders(part)}\r\n\r\n${part.body}`;
    message = `${lines.join('\r\n')}\r\n${body}\r\n--${boundary}--\r\n`;
  }
  return { raw: Buffer.from(message, 'utf8'), fromAddress: sender.address };
}

interface Part {
  type: 'text/plain' | 'text/html';
  encoding: ReturnType<typeof transferEncodingOf>;
  body: string;
}

function partHeaders(part: Part): string {
  return `Content-Type: ${part.type}; charset=utf-8\r\nContent-Transfer-Encoding: ${part.encoding}`;
}

/** Encodes header values exactly as nodemailer's composer does (its own code). */
const encoder = new MimeNode();

/**
 * Header names nodemailer's composer sets itself, or encodes as structured values: a custom
 * header by one of these names changes what the composer does, so nodemailer composes that
 * message.
 */
const STANDARD = new Set([
  'From',
  'Sender',
  'To',
  'Cc',
  'Bcc',
  'Reply-To',
  'In-Reply-To',
  'References',
  'Subject',
  'Message-ID',
  'Content-ID',
  'OTP-Token',
  'Date',
  'MIME-Version',
  'Content-Type',
  'Content-Disposition',
  'Content-Transfer-Encoding',
]);

/**
 * A value nodemailer writes as it is: printable ASCII without the quote (which it encodes),
 * and nothing that reads as an encoded word.
 */
const PLAIN_TEXT = /^[\x20\x21\x23-\x7e]*$/;
/** An address nodemailer writes as it is: a dot-atom at a lower-case ASCII host name. */
const PLAIN_ADDRESS =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/;
const MESSAGE_ID = /^<[\x21-\x7e]+>$/;

/** Folded at 76 like nodemailer's; a line shorter than that stays as it is. */
function fold(line: string): string {
  return line.length < 76 ? line : foldLines(line, 76);
}

function encodedLine(name: string, value: string): string {
  return fold(`${name}: ${encoder.encodeHeaderValue(name, value)}`);
}

/** nodemailer leaves out headers whose value is blank. */
function pushHeader(lines: string[], name: string, value: string): void {
  const text = String(value ?? '');
  if (!text.trim()) return;
  if (PLAIN_TEXT.test(text) && !text.includes('=?')) {
    lines.push(fold(`${name}: ${text}`));
    return;
  }
  const encoded = encoder.encodeHeaderValue(name, text);
  if (encoded.trim()) lines.push(fold(`${name}: ${encoded}`));
}

const names = new Map<string, string | undefined>();
const NAMES_KEPT = 1000;

/** nodemailer's spelling of a header name (List-Unsubscribe, MIME-Version, X-Herald-Campaign). */
function headerName(key: string): string | undefined {
  let name = names.get(key);
  if (name === undefined && !names.has(key)) {
    // The composer drops a name left empty (nothing but spaces, colons or controls): let it.
    name = (encoder as unknown as { _normalizeHeaderKey(key: string): string })._normalizeHeaderKey(
      key,
    );
    name = name || undefined;
    if (names.size >= NAMES_KEPT) names.clear();
    names.set(key, name);
  }
  return name;
}

interface Sender {
  line: string;
  address: string;
}

const senders = new Map<string, Sender | null>();
const SENDERS_KEPT = 1000;

/** The From line and its address, worked out once per distinct From. */
function senderOf(from: string): Sender | undefined {
  let sender = senders.get(from);
  if (sender === undefined) {
    const node = new MimeNode();
    node.setHeader('From', from);
    const address = node.getEnvelope().from;
    sender = address ? { line: encodedLine('From', from), address } : null;
    if (senders.size >= SENDERS_KEPT) senders.clear();
    senders.set(from, sender);
  }
  return sender ?? undefined;
}

let date = { second: -1, line: '' };

/** The Date line nodemailer writes, made once per second. */
function dateLine(now: number): string {
  const second = Math.floor(now / 1000);
  if (date.second !== second) {
    const value = new Date(second * 1000).toUTCString().replace(/GMT/, '+0000');
    date = { second, line: `Date: ${value}` };
  }
  return date.line;
}

/**
 * A multipart boundary: random per process, numbered per message. `=_` cannot occur in
 * quoted-printable or base64 text; a 7bit part is searched, and a boundary it happens to
 * contain is replaced by a fresh random one.
 */
const BOUNDARY_PREFIX = `--_Herald=_${randomBytes(8).toString('hex')}`;
let boundaries = 0;

function boundaryFor(parts: Part[]): string {
  let boundary = `${BOUNDARY_PREFIX}_${(boundaries = (boundaries + 1) % 1e9)}`;
  while (parts.some((part) => part.encoding === '7bit' && part.body.includes(boundary))) {
    boundary = `--_Herald=_${randomBytes(12).toString('hex')}`;
  }
  return boundary;
}
