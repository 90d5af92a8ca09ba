import { isEmail } from 'class-validator';
import { isUuid } from '../platform/crypto/ids';
import { InvalidRequestError } from '../platform/errors/api-errors';
import { isOneOf } from '../platform/validation/one-of';
import {
  MESSAGE_SOURCES,
  MESSAGE_STATUSES,
  type MessageSource,
  type MessageStatus,
} from './messages.repository';

/** The filters of GET /v1/messages, as the client sent them. */
export interface MessageQuery {
  recipient?: unknown;
  status?: unknown;
  source?: unknown;
  campaign_id?: unknown;
  automation_id?: unknown;
  since?: unknown;
  until?: unknown;
}

/** The filters once parsed; the recipient is still plaintext here (hashed by the service). */
export interface MessageFilters {
  recipient?: string;
  status?: MessageStatus;
  source?: MessageSource;
  campaignId?: string;
  automationId?: string;
  since?: Date;
  until?: Date;
}

/** RFC 3339: a full date and time with seconds, optional fraction, and Z or an offset. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** Parses the filters; any that cannot be parsed (or is given twice) is a 400. */
export function parseMessageFilters(query: MessageQuery): MessageFilters {
  const filters: MessageFilters = {};
  const recipient = single(query.recipient, 'recipient');
  if (recipient !== undefined) {
    const email = recipient.trim();
    if (email.length > 254 || !isEmail(email)) {
      throw new InvalidRequestError('recipient must be an email address.');
    }
    filters.recipient = email;
  }
  const status = single(query.status, 'status');
  if (status !== undefined) filters.status = oneOf(status, MESSAGE_STATUSES, 'status');
  const source = single(query.source, 'source');
  if (source !== undefined) filters.source = oneOf(source, MESSAGE_SOURCES, 'source');
  const campaignId = single(query.campaign_id, 'campaign_id');
  if (campaignId !== undefined) filters.campaignId = uuid(campaignId, 'campaign_id');
  const automationId = single(query.automation_id, 'automation_id');
  if (automationId !== undefined) filters.automationId = uuid(automationId, 'automation_id');
  const since = single(query.since, 'since');
  if (since !== undefined) filters.since = time(since, 'since');
  const until = single(query.until, 'until');
  if (until !== undefined) filters.until = time(until, 'until');
  return filters;
}

function single(raw: unknown, name: string): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') throw new InvalidRequestError(`${name} may be given once.`);
  return raw;
}

function oneOf<T extends string>(value: string, allowed: readonly T[], name: string): T {
  if (!isOneOf(allowed, value)) {
    throw new InvalidRequestError(`${name} must be one of ${allowed.join(', ')}.`);
  }
  return value;
}

function uuid(value: string, name: string): string {
  if (!isUuid(value)) throw new InvalidRequestError(`${name} must be a UUID.`);
  return value.toLowerCase();
}

function time(value: string, name: string): Date {
  const parsed = new Date(value.replace(' ', 'T'));
  if (!RFC3339.test(value) || Number.isNaN(parsed.getTime()) || !realDate(value)) {
    throw new InvalidRequestError(
      `${name} must be an RFC 3339 date-time, e.g. 2026-01-31T09:00:00Z.`,
    );
  }
  return parsed;
}

/** The calendar date and the time of day exist (Date would roll 02-30 into March). */
function realDate(value: string): boolean {
  const [year, month, day, hour, minute, second] = value
    .slice(0, 19)
    .split(/[-T t:]/)
    .map(Number);
  const date = new Date(Date.UTC(year, month - 1, day));
  return (
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    hour < 24 &&
    minute < 60 &&
    second < 60
  );
}
