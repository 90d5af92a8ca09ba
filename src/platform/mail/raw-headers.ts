/**
 * The header section of a message as a client wrote it, read and edited without parsing the
 * rest: fields are kept byte for byte (read as latin1, which maps every byte to one character
 * and back), so a message passes through unchanged apart from the fields named here.
 */
export interface RawHeaderField {
  /** The field name in lower case. */
  name: string;
  /** The whole field, folded lines and line ends included. */
  raw: string;
}

export interface RawMessage {
  fields: RawHeaderField[];
  /** The blank line and everything after it (empty when the message has no body). */
  rest: Buffer;
}

/** Splits a message into its header fields and the rest; linear in the header's length. */
export function readRawMessage(mime: Buffer): RawMessage {
  const end = headerEnd(mime);
  const head = mime.subarray(0, end).toString('latin1');
  const fields: RawHeaderField[] = [];
  for (const line of head.split(/(?<=\n)/)) {
    const last = fields[fields.length - 1];
    // A line that starts with white space continues the field before it (folding).
    if (last && (line.startsWith(' ') || line.startsWith('\t'))) {
      last.raw += line;
      continue;
    }
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim().toLowerCase() : '';
    fields.push({ name, raw: line });
  }
  return { fields, rest: mime.subarray(end) };
}

export function writeRawMessage(message: RawMessage): Buffer {
  const head = Buffer.from(message.fields.map((field) => field.raw).join(''), 'latin1');
  return Buffer.concat([head, message.rest]);
}

/** A field's value unfolded and trimmed (the first such field), or undefined. */
export function headerValue(message: RawMessage, name: string): string | undefined {
  const field = message.fields.find((f) => f.name === name);
  if (!field) return undefined;
  return field.raw
    .slice(field.raw.indexOf(':') + 1)
    .replace(/\r?\n[ \t]/g, ' ')
    .trim();
}

/** The message's Message-ID header value, angle brackets included, or undefined. */
export function rawMessageId(mime: Buffer): string | undefined {
  const value = headerValue(readRawMessage(mime), 'message-id');
  return value && /^<[^<>\s]+>$/.test(value) ? value : undefined;
}

/** The message with a Message-ID field put first when it has none. */
export function withMessageId(mime: Buffer, messageId: string): Buffer {
  if (rawMessageId(mime)) return mime;
  return Buffer.concat([Buffer.from(`Message-ID: ${messageId}\r\n`, 'latin1'), mime]);
}

/** Where the header section ends: at its blank line, or the whole message when there is none. */
function headerEnd(mime: Buffer): number {
  if (mime.subarray(0, 2).toString('latin1') === '\r\n') return 0;
  if (mime[0] === 0x0a) return 0;
  let at = 0;
  while (at < mime.length) {
    const newline = mime.indexOf(0x0a, at);
    if (newline < 0) return mime.length;
    const next = mime[newline + 1];
    if (next === 0x0a) return newline + 1;
    if (next === 0x0d && mime[newline + 2] === 0x0a) return newline + 1;
    at = newline + 1;
  }
  return mime.length;
}
