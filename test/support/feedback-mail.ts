import nodemailer from 'nodemailer';

/**
 * Builders of the reports a receiving system sends back, and a client that delivers them to
 * Herald's inbound port over real SMTP: what a bounce, a complaint or an unsubscribe looks
 * like on the wire.
 */

/** An RFC 3464 delivery status notification about one original message. */
export function deliveryReport(options: {
  to: string;
  finalRecipient: string;
  action?: 'failed' | 'delayed' | 'delivered';
  status: string;
  originalHeaders?: string;
  messageId?: string;
}): string {
  const boundary = 'dsn-boundary-1';
  return [
    'From: Mail Delivery System <MAILER-DAEMON@mx.example.net>',
    `To: ${options.to}`,
    'Subject: Undelivered Mail Returned to Sender',
    `Message-ID: <${options.messageId ?? `${Math.random().toString(36).slice(2)}`}@mx.example.net>`,
    'Auto-Submitted: auto-replied',
    'MIME-Version: 1.0',
    `Content-Type: multipart/report; report-type=delivery-status; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset=us-ascii',
    '',
    // Prose that names another address: Herald must not believe it.
    'I could not deliver your message to someone-else@example.org. This is permanent.',
    '',
    `--${boundary}`,
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.example.net',
    'Arrival-Date: Mon, 1 Jan 2024 10:00:00 +0000',
    '',
    `Final-Recipient: rfc822; ${options.finalRecipient}`,
    `Action: ${options.action ?? 'failed'}`,
    `Status: ${options.status}`,
    'Diagnostic-Code: smtp; 550 5.1.1 user unknown',
    '',
    `--${boundary}`,
    'Content-Type: text/rfc822-headers',
    '',
    options.originalHeaders ?? 'Subject: (original)',
    '',
    `--${boundary}--`,
    '',
  ].join('\r\n');
}

/** An RFC 5965 abuse report quoting the headers of the message complained about. */
export function abuseReport(options: {
  to: string;
  originalHeaders: string;
  feedbackType?: string;
}): string {
  const boundary = 'arf-boundary-1';
  return [
    'From: Feedback Loop <fbl@isp.example.net>',
    `To: ${options.to}`,
    'Subject: FW: complaint',
    `Message-ID: <${Math.random().toString(36).slice(2)}@isp.example.net>`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/report; report-type=feedback-report; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain',
    '',
    'This is an email abuse report.',
    '',
    `--${boundary}`,
    'Content-Type: message/feedback-report',
    '',
    `Feedback-Type: ${options.feedbackType ?? 'abuse'}`,
    'User-Agent: ISP-FBL/1.0',
    'Version: 1',
    '',
    `--${boundary}`,
    'Content-Type: message/rfc822',
    'Content-Disposition: inline',
    '',
    options.originalHeaders,
    '',
    'The original body.',
    '',
    `--${boundary}--`,
    '',
  ].join('\r\n');
}

/** The header block of a received message (up to the blank line). */
export function headerBlock(raw: string): string {
  const end = raw.indexOf('\r\n\r\n');
  return end < 0 ? raw : raw.slice(0, end);
}

/**
 * Delivers a raw message to the inbound port with the given envelope (an empty `from` is the
 * null return path `<>` reports are sent with). Resolves with the server's reply or rejects
 * with its refusal (the error carries `responseCode`).
 */
export async function deliver(
  port: number,
  envelope: { from: string; to: string[] },
  raw: string | Buffer,
): Promise<string> {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    ignoreTLS: true,
  });
  try {
    const info = (await transport.sendMail({ envelope, raw })) as { response: string };
    return info.response;
  } finally {
    transport.close();
  }
}
