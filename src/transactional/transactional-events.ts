import { Injectable, OnModuleInit } from '@nestjs/common';
import { runSql } from '../platform/database/sql-runner';
import { messageIdHeader } from '../platform/mail/mail-transport';
import type { MailEvent, TransactionalEventMessage } from '../stats/mail-events';
import { MailEventSubjects } from '../stats/mail-event-subjects';
import * as sql from './transactional-events.sql';

/** Provides MailEvents with a transactional message's Message-ID and recipient. */
@Injectable()
export class TransactionalEvents implements OnModuleInit {
  constructor(private readonly subjects: MailEventSubjects) {}

  onModuleInit(): void {
    this.subjects.provide({
      transactional: async (db, accountId, id) => {
        const [row] = await runSql<{
          header_message_id: string | null;
          from_address: string;
          to_address: string | null;
        }>(db, sql.MESSAGE_SUBJECT, [accountId, id]);
        if (!row) return null;
        // The Message-ID is derived from the id and the From, so it is known before sending.
        return {
          messageId: row.header_message_id ?? messageIdHeader(id, row.from_address),
          email: row.to_address,
        };
      },
    });
  }
}

/** A transactional message's end as mail events: accepted, or refused by the relay. */
export function transactionalMailEvents(
  message: TransactionalEventMessage,
  outcome: { delivered: true } | { delivered: false; hardBounce: boolean; smtpCode?: number },
  /** The relay's reply, for the message log. */
  reply?: string,
): MailEvent[] {
  if (outcome.delivered) {
    return [
      { kind: 'sent', message },
      { kind: 'delivered', message, reply },
    ];
  }
  return [
    { kind: 'sent', message },
    {
      kind: 'bounced',
      message,
      hard: outcome.hardBounce,
      source: 'smtp',
      statusCode: outcome.smtpCode === undefined ? undefined : String(outcome.smtpCode),
      reply,
    },
  ];
}
