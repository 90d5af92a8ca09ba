import type { Attachment, ParsedMail, SimpleParserOptions } from 'mailparser';

/**
 * How inbound mail is parsed: the delivery-status part kept as a part of its own (mailparser
 * would fold it into the text), an attached original message kept whole rather than parsed
 * into the report's body (`ignoreEmbedded`, passed through to mailsplit), and none of the
 * work a report does not need.
 */
export const PARSER_OPTIONS: SimpleParserOptions & { ignoreEmbedded: boolean } = {
  keepDeliveryStatus: true,
  ignoreEmbedded: true,
  skipHtmlToText: true,
  skipTextLinks: true,
  skipImageLinks: true,
  maxHtmlLengthToParse: 1024 * 1024,
};

/** What an inbound message is, as far as Herald cares. */
export type ReportContents =
  /** RFC 3464: the worst per-recipient outcome; `delayed` and `delivered` are not bounces. */
  | { type: 'bounce'; hard: boolean; status: string }
  /** RFC 5965: a complaint, with the header block of the message complained about. */
  | { type: 'complaint'; feedbackType: string; originalHeaders: string }
  | { type: 'other'; why: string };

/** Header blocks beyond this are cut: VERP addresses sit in the first few headers anyway. */
const MAX_HEADER_BLOCK = 64 * 1024;
const STATUS = /^([245])\.\d{1,3}\.\d{1,3}$/;

/** Feedback types that are a recipient's complaint (RFC 5965 §7.3); `not-spam` is the opposite. */
const COMPLAINT_TYPES = new Set(['abuse', 'fraud']);

/**
 * Reads a parsed message (mailparser, `keepDeliveryStatus` on) as a delivery report, a
 * feedback report or something else. Only the report's machine-readable parts are read: the
 * status codes of a DSN and the feedback type of an ARF report. Who the report is about is
 * never taken from its text (see InboundMailService).
 */
export function readReport(mail: ParsedMail): ReportContents {
  const contentType = mail.headers.get('content-type') as
    { value?: string; params?: Record<string, string> } | undefined;
  const reportType = contentType?.params?.['report-type']?.toLowerCase();
  if (contentType?.value?.toLowerCase() !== 'multipart/report') {
    return { type: 'other', why: 'not a report' };
  }
  if (reportType === 'delivery-status') return readDsn(mail.attachments);
  if (reportType === 'feedback-report') return readArf(mail.attachments);
  return { type: 'other', why: `report type ${reportType ?? 'missing'}` };
}

function readDsn(parts: Attachment[]): ReportContents {
  const part = parts.find((p) =>
    ['message/delivery-status', 'message/global-delivery-status'].includes(p.contentType),
  );
  if (!part) return { type: 'other', why: 'delivery report without its status part' };
  let soft: string | undefined;
  // Per-message fields come first, then one block per recipient; each has Action and Status.
  for (const block of fieldBlocks(part.content.toString('utf8'))) {
    const action = block.get('action')?.toLowerCase();
    const status = STATUS.exec(block.get('status') ?? '');
    if (action !== 'failed' || !status) continue;
    if (status[1] === '5') return { type: 'bounce', hard: true, status: status[0] };
    if (status[1] === '4') soft ??= status[0];
  }
  if (soft) return { type: 'bounce', hard: false, status: soft };
  return { type: 'other', why: 'delivery report without a failure' };
}

function readArf(parts: Attachment[]): ReportContents {
  const report = parts.find((p) => p.contentType === 'message/feedback-report');
  if (!report) return { type: 'other', why: 'feedback report without its report part' };
  const [fields] = fieldBlocks(report.content.toString('utf8'));
  const feedbackType = fields?.get('feedback-type')?.toLowerCase() ?? '';
  if (!COMPLAINT_TYPES.has(feedbackType)) {
    return { type: 'other', why: `feedback type ${feedbackType || 'missing'}` };
  }
  const original = parts.find((p) =>
    ['message/rfc822', 'text/rfc822-headers', 'message/global'].includes(p.contentType),
  );
  const text = original ? original.content.subarray(0, MAX_HEADER_BLOCK).toString('utf8') : '';
  const end = text.search(/\r?\n\r?\n/);
  return {
    type: 'complaint',
    feedbackType,
    originalHeaders: (end < 0 ? text : text.slice(0, end)).replace(/\r?\n[ \t]+/g, ' '),
  };
}

/**
 * `Name: value` lines in blank-line separated blocks (RFC 3464 / RFC 5965 field syntax),
 * names lower-cased, folded lines joined, first occurrence kept. Linear in the input.
 */
export function fieldBlocks(text: string): Map<string, string>[] {
  const blocks: Map<string, string>[] = [];
  let current = new Map<string, string>();
  let last: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') {
      if (current.size > 0) blocks.push(current);
      current = new Map();
      last = undefined;
      continue;
    }
    if ((line.startsWith(' ') || line.startsWith('\t')) && last) {
      current.set(last, `${current.get(last)} ${line.trim()}`);
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    // "Status: 5.1.1 (mailbox unknown)" and similar comments: keep the code only.
    if (!current.has(name)) current.set(name, name === 'status' ? value.split(/[\s(]/)[0] : value);
    last = name;
  }
  if (current.size > 0) blocks.push(current);
  return blocks;
}
