import { FeedbackKind } from '../message-refs/feedback-report';

export type Provider = 'ses' | 'postmark' | 'sendgrid' | 'mailgun';

/** One bounce or complaint a provider reports, in Herald's terms. */
export interface ProviderEvent {
  /** The provider's own id of the event, unique per provider: what makes a repeat count once. */
  eventId: string;
  kind: FeedbackKind;
  /** The address the provider names. */
  recipient: string;
  /** The Message-ID header of the message, when the provider passes it on. */
  messageId?: string;
  statusCode?: string;
}

/** A notification that fails its provider's verification: 401, nothing changes. */
export class UnverifiedNotification extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'UnverifiedNotification';
  }
}

/** A provider's enhanced status code, if the value is one. */
export function statusCode(value: unknown): string | undefined {
  return typeof value === 'string' && /^[245]\.\d{1,3}\.\d{1,3}$/.test(value.trim())
    ? value.trim()
    : undefined;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}
