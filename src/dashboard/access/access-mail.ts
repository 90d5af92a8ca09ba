import { Inject, Injectable } from '@nestjs/common';
import { HeraldConfig } from '../../platform/config/config';
import { CONFIG } from '../../platform/config/config.module';
import { newId } from '../../platform/crypto/ids';
import { MailTransport } from '../../platform/mail/mail-transport';

/** Stored copies (outbox mode) of Herald's own mail to people go to one folder. */
const STORAGE_KEY = 'dashboard-mail';

/**
 * Herald's own mail to dashboard people: password reset links and invitations, from
 * MAIL_FROM through the same transport as every other message (the relay of SMTP_URL, or the
 * outbox). Links carry their token after `#`: browsers send no fragment to the server, so it
 * stays out of request logs and Referer headers.
 */
@Injectable()
export class AccessMail {
  constructor(
    private readonly transport: MailTransport,
    @Inject(CONFIG) private readonly config: HeraldConfig,
  ) {}

  /** A relay is configured: mail actually leaves (invitations are only emailed then). */
  get relayConfigured(): boolean {
    return this.config.smtpUrl !== undefined;
  }

  invitationUrl(token: string): string {
    return `${this.config.publicUrl}/dashboard/join#${token}`;
  }

  resetUrl(token: string): string {
    return `${this.config.publicUrl}/dashboard/reset-password#${token}`;
  }

  async sendPasswordReset(to: string, token: string): Promise<void> {
    const url = this.resetUrl(token);
    await this.send(
      to,
      'Set a new Herald password',
      [
        'Someone asked to set a new password for the Herald dashboard account that signs in with this email.',
        `To choose a new password, open this link within the next hour (it works once):`,
        url,
        'If it was not you, ignore this email: your password stays as it is.',
      ],
      url,
    );
  }

  async sendInvitation(
    to: string,
    invitation: { accountName: string; inviter: string; token: string },
  ): Promise<void> {
    const url = this.invitationUrl(invitation.token);
    const accountName = oneLine(invitation.accountName);
    await this.send(
      to,
      `Join ${accountName} on Herald`,
      [
        `${oneLine(invitation.inviter)} invited you to join ${accountName} on Herald.`,
        'To accept, open this link within 7 days and choose your name and password (it works once):',
        url,
        'If you did not expect this invitation, ignore this email.',
      ],
      url,
    );
  }

  private async send(to: string, subject: string, paragraphs: string[], url: string) {
    const html = paragraphs
      .map((line) =>
        line === url
          ? `<p><a href="${escapeHtml(url)}">${escapeHtml(url)}</a></p>`
          : `<p>${escapeHtml(line)}</p>`,
      )
      .join('\n');
    await this.transport.send({
      from: this.config.mailFrom,
      to,
      subject,
      text: `${paragraphs.join('\n\n')}\n`,
      html,
      messageId: newId(),
      storageKey: STORAGE_KEY,
    });
  }
}

/** Names typed by people go into a subject line and sentences: no line breaks. */
function oneLine(text: string): string {
  return text.replace(/[\r\n\t]+/g, ' ').trim();
}

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}
