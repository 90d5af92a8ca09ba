import { createHash, createPrivateKey, KeyObject, sign } from 'node:crypto';
import { domainToASCII } from 'node:url';
import { foldLines } from 'nodemailer/lib/mime-funcs';

/** A sender domain's signing key: the domain (d=), the selector (s=) and the PEM private key. */
export interface DkimKey {
  domainName: string;
  keySelector: string;
  privateKey: string;
}

/**
 * The header fields a signature covers when the message has them: nodemailer's list (RFC 6376
 * §5.4.1's recommendation plus the list headers), in its order, so that a message signed here
 * carries the same signature nodemailer's signer would give it.
 */
const SIGNED_FIELDS = [
  'from',
  'sender',
  'reply-to',
  'subject',
  'date',
  'message-id',
  'to',
  'cc',
  'mime-version',
  'content-type',
  'content-transfer-encoding',
  'content-id',
  'content-description',
  'resent-date',
  'resent-from',
  'resent-sender',
  'resent-to',
  'resent-cc',
  'resent-message-id',
  'in-reply-to',
  'references',
  'list-id',
  'list-help',
  'list-unsubscribe',
  'list-subscribe',
  'list-post',
  'list-owner',
  'list-archive',
  'otp-token',
];

/**
 * The message with a DKIM-Signature header in front (rsa-sha256, relaxed/relaxed, RFC 6376),
 * byte for byte what nodemailer's DKIM signer writes for the same message and key, in one pass
 * over the bytes instead of a chain of streams; the RSA signature is computed on libuv's
 * thread pool (the asynchronous crypto.sign), so the event loop serves the relay's sockets and
 * the database meanwhile. Each key's PEM is parsed once, not once per message. A key that
 * cannot sign (a broken PEM) leaves the message unsigned, as nodemailer does.
 */
export async function dkimSigned(raw: Buffer, key: DkimKey): Promise<Buffer> {
  const split = headerEnd(raw);
  const headers = parseHeaders(raw.toString('latin1', 0, split));
  const bodyHash = relaxedBodyHash(raw.subarray(split));
  const { canonical, fieldNames } = relaxedHeaders(headers);
  const domain = domainOf(key.domainName);
  const tags = [
    'v=1',
    'a=rsa-sha256',
    'c=relaxed/relaxed',
    `d=${domain}`,
    'q=dns/txt',
    `s=${cleanTagValue(key.keySelector)}`,
    `bh=${bodyHash}`,
    `h=${fieldNames}`,
  ].join('; ');
  const field = `${foldLines(`DKIM-Signature: ${tags}`, 76)};\r\n b=`;
  const signed = `${canonical}dkim-signature:${relaxedValue(field)}`;
  const privateKey = keyObjectOf(key.privateKey);
  if (!privateKey) return raw;
  const signature = await new Promise<Buffer | undefined>((resolve) =>
    sign('sha256', Buffer.from(signed, 'latin1'), privateKey, (error, result) =>
      resolve(error ? undefined : result),
    ),
  );
  if (!signature) return raw;
  const folded = signature
    .toString('base64')
    .replace(/(^.{73}|.{75}(?!\r?\n|\r))/g, '$&\r\n ')
    .trim();
  const header = Buffer.from(`${field}${folded}\r\n`, 'latin1');
  return Buffer.concat([header, raw], header.length + raw.length);
}

/** Where the body begins: after the first empty line (CRLF or bare LF), else the end. */
function headerEnd(raw: Buffer): number {
  for (let at = raw.indexOf(0x0a); at > 0; at = raw.indexOf(0x0a, at + 1)) {
    const before = raw[at - 1];
    if (before === 0x0a) return at + 1;
    if (before === 0x0d && at > 1 && raw[at - 2] === 0x0a) return at + 1;
  }
  return raw.length;
}

interface HeaderLine {
  key: string;
  line: string;
}

/** The header block as unfolded fields with their lower-case names, each byte one char. */
function parseHeaders(block: string): HeaderLine[] {
  const lines: string[] = [];
  for (const rawLine of block.split(/\r?\n/)) {
    if (lines.length > 0 && (rawLine.startsWith(' ') || rawLine.startsWith('\t'))) {
      lines[lines.length - 1] += `\n${rawLine}`;
    } else {
      lines.push(rawLine);
    }
  }
  return lines
    .filter((line) => /[^ \t\r]/.test(line))
    .map((line) => ({
      key: line
        .slice(0, Math.max(0, line.indexOf(':')))
        .replace(/^[ \t]+|[ \t]+$/g, '')
        .toLowerCase(),
      line,
    }));
}

/** The covered fields (the last of each name), canonicalised, and their names for h=. */
function relaxedHeaders(headers: HeaderLine[]): { canonical: string; fieldNames: string } {
  const found = new Map<string, string>();
  for (let i = headers.length - 1; i >= 0; i--) {
    const { key, line } = headers[i];
    if (!found.has(key)) found.set(key, line);
  }
  let canonical = '';
  const names: string[] = [];
  for (const name of SIGNED_FIELDS) {
    const line = found.get(name);
    if (line === undefined) continue;
    names.push(name);
    canonical += `${name}:${relaxedValue(line)}\r\n`;
  }
  return { canonical, fieldNames: names.join(':') };
}

/** A field's value, relaxed (RFC 6376 §3.4.2): unfolded, runs of SP/HTAB one SP, trimmed. */
function relaxedValue(line: string): string {
  return line
    .slice(line.indexOf(':') + 1)
    .replace(/\r?\n/g, '')
    .replace(/[ \t]+/g, ' ')
    .replace(/^ | $/g, '');
}

const CR = 0x0d;
const LF = 0x0a;
const SP = 0x20;
const TAB = 0x09;

/**
 * The base64 SHA-256 of the body, relaxed (RFC 6376 §3.4.4): whitespace at line ends dropped,
 * other runs of SP/HTAB one SP, empty lines at the end dropped, a line break at the end.
 * A bare LF ends a line as CRLF does; a CR not before an LF is content.
 */
function relaxedBodyHash(body: Buffer): string {
  // Each byte gives at most two (a bare LF becomes CRLF), plus the CRLF added at the end.
  const out = Buffer.allocUnsafe(body.length * 2 + 2);
  let length = 0;
  /** Where the canonical body ends: after the last line with content (empty lines go). */
  let contentEnd = 0;
  let lineHasContent = false;
  let pendingSpace = false;
  let pendingCr = false;
  for (let i = 0; i < body.length; i++) {
    const byte = body[i];
    if (byte === LF) {
      // Trailing whitespace and a CR before the LF are dropped; an empty line stays only if
      // a line with content follows.
      out[length++] = CR;
      out[length++] = LF;
      if (lineHasContent) contentEnd = length;
      lineHasContent = false;
      pendingSpace = false;
      pendingCr = false;
      continue;
    }
    if (pendingCr) {
      // Not followed by LF: the CR is content.
      if (pendingSpace) out[length++] = SP;
      out[length++] = CR;
      pendingSpace = false;
      pendingCr = false;
      lineHasContent = true;
    }
    if (byte === CR) pendingCr = true;
    else if (byte === SP || byte === TAB) pendingSpace = true;
    else {
      if (pendingSpace) out[length++] = SP;
      out[length++] = byte;
      pendingSpace = false;
      lineHasContent = true;
    }
  }
  if (pendingCr) {
    if (pendingSpace) out[length++] = SP;
    out[length++] = CR;
    lineHasContent = true;
  }
  if (lineHasContent) {
    out[length++] = CR;
    out[length++] = LF;
    contentEnd = length;
  }
  return createHash('sha256').update(out.subarray(0, contentEnd)).digest('base64');
}

/** A tag value without what would end the tag or the field (as nodemailer cleans it). */
function cleanTagValue(value: string): string {
  let clean = '';
  for (const char of value || '') {
    const code = char.charCodeAt(0);
    if (code >= 0x20 && code !== 0x7f && char !== ';' && char !== '=') clean += char;
  }
  return clean;
}

const domains = new Map<string, string>();
const keys = new Map<string, KeyObject | null>();
/** Distinct keys and domains kept parsed: every sender domain of a busy worker, bounded. */
const KEPT = 1000;

/** d=: the domain in its ASCII (A-label) form, as nodemailer normalises it. */
function domainOf(name: string): string {
  let domain = domains.get(name);
  if (domain === undefined) {
    const cleaned = cleanTagValue(name);
    domain = domainToASCII(cleaned) || cleaned.toLowerCase();
    if (domains.size >= KEPT) domains.clear();
    domains.set(name, domain);
  }
  return domain;
}

function keyObjectOf(pem: string): KeyObject | undefined {
  let key = keys.get(pem);
  if (key === undefined) {
    try {
      key = createPrivateKey(pem);
    } catch {
      key = null;
    }
    if (keys.size >= KEPT) keys.clear();
    keys.set(pem, key);
  }
  return key ?? undefined;
}
